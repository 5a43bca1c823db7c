// Installs npm dependencies when node_modules is missing or older than the lockfile/manifests,
// so `npm start` and `npm test` work on a fresh clone with nothing installed by hand.
import { spawnSync } from 'node:child_process'
import { existsSync, statSync } from 'node:fs'

const stamp = 'node_modules/.package-lock.json'
const manifests = [
  'package.json',
  'package-lock.json',
  'server/package.json',
  'conformance/package.json',
]
const newest = Math.max(...manifests.filter((f) => existsSync(f)).map((f) => statSync(f).mtimeMs))
const fresh = existsSync(stamp) && statSync(stamp).mtimeMs >= newest
if (!fresh) {
  const ci = existsSync('package-lock.json') ? ['ci'] : ['install']
  process.stderr.write(`installing npm dependencies (npm ${ci[0]})…\n`)
  const r = spawnSync('npm', [...ci, '--no-audit', '--no-fund'], { stdio: 'inherit' })
  if (r.status !== 0) process.exit(r.status ?? 1)
}
