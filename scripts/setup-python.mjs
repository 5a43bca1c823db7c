#!/usr/bin/env node
// Creates conformance/.venv with the pinned stock Python SDK for the conformance suite.
//
//   node scripts/setup-python.mjs [--force]
//
// Idempotent: a stamp file inside the venv records what was installed; when it matches the
// pin below, the script exits in milliseconds. `npm test` runs it before vitest. Without a
// usable python3 it prints why and exits 1, which `npm test` counts as a failure.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The stock SDK under test (newest 2.x when pinned) and the OpenAPI checkers; bump deliberately. */
const REQUIREMENTS = [
  'sentry-sdk==2.75.0',
  // The management API's generated OpenAPI document is checked with these (server/test/openapi-conformance.test.ts).
  'openapi-spec-validator==0.9.0',
  'schemathesis==4.32.5',
]

const root = fileURLToPath(new URL('..', import.meta.url))
const venv = join(root, 'conformance', '.venv')
const python = join(venv, 'bin', 'python')
const stamp = join(venv, '.conformance-requirements')
const wanted = `${REQUIREMENTS.join('\n')}\n`
const force = process.argv.includes('--force')

function run(command, args) {
  const result = spawnSync(command, args, { stdio: 'inherit' })
  if (result.error) throw result.error
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}`)
}

if (!force && existsSync(python) && existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted) {
  process.exit(0)
}

const probe = spawnSync('python3', ['-c', 'import sys, venv; print(sys.version.split()[0])'], {
  encoding: 'utf8',
})
if (probe.error || probe.status !== 0) {
  // The test step that called us fails (it is counted): a missing Python must not pass silently.
  console.error('setup-python: python3 with the venv module is not available')
  process.exit(1)
}

console.log(`setup-python: creating ${venv} (python ${probe.stdout.trim()}) with ${REQUIREMENTS}`)
if (existsSync(venv)) rmSync(venv, { recursive: true, force: true })
run('python3', ['-m', 'venv', venv])
run(python, [
  '-m',
  'pip',
  'install',
  '--quiet',
  '--disable-pip-version-check',
  '--no-input',
  ...REQUIREMENTS,
])
writeFileSync(stamp, wanted)
console.log('setup-python: done')
