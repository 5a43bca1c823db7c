// `npm start`: install what is missing, build the server, run it on the embedded default
// (SQLite under ./data). HOST, PORT and DATA_DIR choose where it listens and keeps its files.
import { spawn, spawnSync } from 'node:child_process'
import { serverNodeFlags } from './server-node-flags.mjs'

const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { stdio: 'inherit' })
  if (r.status !== 0) process.exit(r.status ?? 1)
}
run(process.execPath, ['scripts/ensure-install.mjs'])
run('npx', ['--no-install', 'tsc', '-b', 'server'])
const server = spawn(process.execPath, [...serverNodeFlags(process.env), 'server/dist/main.js'], {
  stdio: 'inherit',
})
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal))
server.on('exit', (code) => process.exit(code ?? 0))
