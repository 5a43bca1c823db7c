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
  // `npm install`, not `npm ci`: the registry mirror here lacks Biome's binaries for other
  // platforms, so the lockfile cannot list them and `npm ci` refuses it; `install` still
  // follows the lockfile's versions.
  process.stderr.write('installing npm dependencies (npm install)…\n')
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund'], { stdio: 'inherit' })
  if (r.status !== 0) process.exit(r.status ?? 1)
}
