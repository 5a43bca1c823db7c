#!/usr/bin/env node
// Creates the conformance venvs with the pinned stock Python SDKs for the conformance suite:
// conformance/.venv with the newest sentry-sdk, conformance/.venv-prev with the newest release
// of the previous minor (SDK users upgrade slowly; the server must accept both).
//
//   node scripts/setup-python.mjs [--force]
//
// Idempotent: a stamp file inside each venv records what was installed; when it matches the
// pin below, the script exits in milliseconds. `npm test` runs it before vitest. Without a
// usable python3 it prints why and exits 1, which `npm test` counts as a failure.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The stock SDKs under test by venv (newest 2.x and its previous minor), and the checkers of the
 * management API's generated OpenAPI document (server/test/openapi-conformance.test.ts); bump
 * deliberately.
 */
const VENVS = {
  '.venv': ['sentry-sdk==2.75.0'],
  '.venv-prev': ['sentry-sdk==2.74.0'],
  // The last 1.x release: 2.0 changed the scope, session and transport APIs, and 1.x is still
  // deployed widely (conformance/drivers/python/common.py bridges the difference).
  '.venv-1x': ['sentry-sdk==1.45.1'],
  // The web-framework rows (conformance/drivers/flask, fastapi, django) and the privacy test's
  // Flask app: the newest sentry-sdk
  // beside the frameworks, whose integrations it enables by itself. One venv for the three
  // apps (an integration stays idle in an app of another framework); Django 5.2 is the newest
  // line that runs on Python 3.11.
  '.venv-web': [
    'sentry-sdk==2.75.0',
    'flask==3.1.3',
    'fastapi==0.165.0',
    'uvicorn==0.54.0',
    'django==5.2.19',
  ],
  // The legacy raven client (the last release, 2018), still deployed in old Python apps: it
  // speaks the `/store/` endpoint, names interfaces `sentry.interfaces.*` and sends log
  // templates unrendered (conformance/src/sdk/legacy-clients.test.ts).
  '.venv-raven': ['raven==6.10.0'],
  // Its own venv: the SDK venvs stay exactly what an SDK user has (sentry-sdk enables
  // integrations for whatever libraries it finds installed).
  '.venv-openapi': ['openapi-spec-validator==0.9.0', 'schemathesis==4.32.5'],
}

const root = fileURLToPath(new URL('..', import.meta.url))
const force = process.argv.includes('--force')

function run(command, args) {
  const result = spawnSync(command, args, { stdio: 'inherit' })
  if (result.error) throw result.error
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}`)
}

/** True when the venv exists with exactly these requirements. */
function current(venv, wanted) {
  const stamp = join(venv, '.conformance-requirements')
  return (
    existsSync(join(venv, 'bin', 'python')) &&
    existsSync(stamp) &&
    readFileSync(stamp, 'utf8') === wanted
  )
}

const pending = Object.entries(VENVS).filter(
  ([name, requirements]) =>
    force || !current(join(root, 'conformance', name), `${requirements.join('\n')}\n`),
)
if (pending.length === 0) process.exit(0)

const probe = spawnSync('python3', ['-c', 'import sys, venv; print(sys.version.split()[0])'], {
  encoding: 'utf8',
})
if (probe.error || probe.status !== 0) {
  // The test step that called us fails (it is counted): a missing Python must not pass silently.
  console.error('setup-python: python3 with the venv module is not available')
  process.exit(1)
}

for (const [name, requirements] of pending) {
  const venv = join(root, 'conformance', name)
  const python = join(venv, 'bin', 'python')
  console.log(`setup-python: creating ${venv} (python ${probe.stdout.trim()}) with ${requirements}`)
  if (existsSync(venv)) rmSync(venv, { recursive: true, force: true })
  run('python3', ['-m', 'venv', venv])
  run(python, [
    '-m',
    'pip',
    'install',
    '--quiet',
    '--disable-pip-version-check',
    '--no-input',
    ...requirements,
  ])
  writeFileSync(join(venv, '.conformance-requirements'), `${requirements.join('\n')}\n`)
}
console.log('setup-python: done')
