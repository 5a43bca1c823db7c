/**
 * The processes `npm run bench` measures: the built ingest server (on a SQLite data directory
 * or a PostgreSQL URL) and a bare Fastify route, started as children, plus the figures read
 * from /proc for any process id (so `--target --pid` measures a server the bench did not start).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'

/** A started child server. */
export interface Child {
  url: string
  child: ChildProcess
}

/** Starts a child Node process and waits for its `{"msg":"listening",…}` line. */
export function startChild(args: string[], env: Record<string, string>): Promise<Child> {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server did not start in 60 s')), 60_000)
    const rl = createInterface({ input: child.stdout as NodeJS.ReadableStream })
    rl.on('line', (line) => {
      if (!line.startsWith('{"msg":"listening"')) return
      clearTimeout(timer)
      resolve({ url: (JSON.parse(line) as { url: string }).url, child })
    })
    child.on('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`server exited with ${code}`))
    })
  })
}

/** Stops a child server (SIGTERM: the last group commit is flushed) and waits for its exit. */
export async function stopChild(c: Child): Promise<void> {
  if (c.child.exitCode !== null || c.child.signalCode !== null) return
  const exited = new Promise((r) => c.child.once('exit', r))
  c.child.kill('SIGTERM')
  await exited
}

/** Where the ingest server keeps its data. */
export type Storage = { dataDir: string } | { dataDir: string; databaseUrl: string }

/**
 * Starts the built ingest server (`dist/main.js`, with the Node flags `npm start` passes unless
 * the bench was told others) with an admin token for the bench's API calls.
 */
export function startIngest(
  dist: string,
  storage: Storage,
  token: string,
  extraEnv: Record<string, string>,
  nodeFlags: readonly string[],
): Promise<Child> {
  return startChild([...nodeFlags, join(dist, 'main.js')], {
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: storage.dataDir,
    ...('databaseUrl' in storage ? { DATABASE_URL: storage.databaseUrl } : {}),
    INGEST_ADMIN_TOKEN: token,
    LOG_LEVEL: 'warn',
    // No load balancer to drain for: stop at once.
    SHUTDOWN_DRAIN_MS: '0',
    ...extraEnv,
  })
}

// The ceiling: Fastify with the same body handling as an ingest route (raw buffer, any type)
// and nothing else. One process, one JS thread, as the ingest server's HTTP side.
const BARE = `
import Fastify from 'fastify'
const app = Fastify()
app.removeAllContentTypeParsers()
app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1 << 26 }, (_req, body, done) => done(null, body))
app.post('/api/:projectId/envelope/', async () => ({}))
await app.listen({ host: '127.0.0.1', port: 0 })
console.log(JSON.stringify({ msg: 'listening', url: 'http://127.0.0.1:' + app.server.address().port }))
`

/** Starts the bare Fastify route (resolved from the server workspace's Fastify). */
export function startBare(): Promise<Child> {
  return startChild(['--input-type=module', '-e', BARE], {})
}

/** Peak resident memory of a process so far, MiB, from /proc (Linux). */
export function peakRssMiB(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m?.[1] === undefined ? Number.NaN : Math.round(Number(m[1]) / 1024)
}

/** Current resident memory of a process, MiB. */
export function rssMiB(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m?.[1] === undefined ? Number.NaN : Math.round(Number(m[1]) / 1024)
}

/**
 * CPU time (user + system, every thread: the writer thread counts) a process used so far, ms,
 * from /proc/<pid>/stat; USER_HZ is 100 on Linux.
 */
export function cpuMs(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
}
