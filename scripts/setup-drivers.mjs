#!/usr/bin/env node
// Builds the conformance drivers that need a compiler, from their registries, into the ignored
// .cache/drivers/ (the Go module cache and ~/.m2 keep the downloads between runs):
//
//   node scripts/setup-drivers.mjs [go] [java]
//
// Idempotent: each build writes a stamp with the hash of its sources; when it matches, the build
// is skipped in milliseconds. A missing toolchain is printed and makes the exit code 1 (npm test
// counts it), and the runner then reports that driver's cells as not run (a failure on CI).
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const cache = join(root, '.cache', 'drivers')

/** Hash of every file under `dir` (sorted), so any source change rebuilds. */
function sourceHash(dir) {
  const hash = createHash('sha256')
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      if (name === 'target' || name === 'driver.json') continue
      const path = join(d, name)
      if (statSync(path).isDirectory()) walk(path)
      else hash.update(`${path.slice(root.length)}\0`).update(readFileSync(path))
    }
  }
  walk(dir)
  return hash.digest('hex')
}

function run(command, args, cwd) {
  const r = spawnSync(command, args, { cwd, stdio: 'inherit' })
  if (r.error) throw r.error
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${r.status}`)
}

/** Builds `what` unless its stamp matches; `build(outDir)` does the work. */
function cached(what, sources, output, build) {
  const out = join(cache, what)
  const stamp = join(out, '.sources')
  const hash = sourceHash(sources)
  if (existsSync(join(out, output)) && existsSync(stamp) && readFileSync(stamp, 'utf8') === hash) {
    return
  }
  mkdirSync(out, { recursive: true })
  const started = Date.now()
  console.log(`setup-drivers: building ${what}`)
  build(out)
  writeFileSync(stamp, hash)
  console.log(`setup-drivers: ${what} built in ${((Date.now() - started) / 1000).toFixed(1)} s`)
}

const builders = {
  // sentry-go as pinned in go.mod, fetched through the Go module proxy (go.sum checks it).
  go() {
    const dir = join(root, 'conformance', 'drivers', 'go')
    cached('go', dir, 'conformance-go', (out) => {
      run('go', ['build', '-trimpath', '-o', join(out, 'conformance-go'), '.'], dir)
    })
  },
}

const wanted = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(builders)
let failed = false
for (const name of wanted) {
  const build = builders[name]
  if (build === undefined) {
    console.error(`setup-drivers: unknown driver ${name}; one of ${Object.keys(builders)}`)
    process.exit(2)
  }
  try {
    build()
  } catch (error) {
    console.error(`setup-drivers: ${name}: ${error instanceof Error ? error.message : error}`)
    failed = true
  }
}
process.exit(failed ? 1 : 0)
