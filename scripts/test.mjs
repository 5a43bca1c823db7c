// `npm test`: installs what the tests need (npm packages, the Python SDK venv, Rust tools),
// type-checks and lints, runs every vitest project and the Rust SDK suite, and ends with one
// plain line `N passed, N failed` computed from the real results (CI reads that line).
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'

const results = 'artifacts/results'
rmSync(results, { recursive: true, force: true })
mkdirSync(results, { recursive: true })

const checks = []
const step = (name, cmd, args, { required = false, env = {} } = {}) => {
  process.stdout.write(`\n── ${name}: ${cmd} ${args.join(' ')}\n`)
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } })
  const ok = r.status === 0
  checks.push({ name, ok })
  if (!ok && required) summary(1)
  return ok
}

function summary(forceFail = 0) {
  let passed = 0
  let failed = forceFail
  let skipped = 0
  // The names of what failed, repeated at the end: CI keeps only the tail of a long log.
  const failures = []
  // Pipeline steps (install, build, type-checks, lint) are not tests: a failed one counts as a
  // failure, a passed one adds nothing to the passed count.
  for (const c of checks) if (!c.ok) failed++
  const vitest = `${results}/vitest.json`
  if (existsSync(vitest)) {
    const v = JSON.parse(readFileSync(vitest, 'utf8'))
    passed += v.numPassedTests
    failed += v.numFailedTests
    skipped += v.numPendingTests + v.numTodoTests
    // A file that failed to load has no tests counted above: count it as a failure.
    for (const f of v.testResults) {
      if (f.status === 'failed' && f.assertionResults.length === 0) {
        failed++
        failures.push(`vitest: ${f.name} (did not load)`)
      }
      for (const a of f.assertionResults)
        if (a.status === 'failed') failures.push(`vitest: ${f.name} › ${a.fullName}`)
    }
  }
  // The stock-SDK matrix counts its cells: "not supported" is neither, "not run" (a runtime
  // missing off CI; on CI the runner makes that a failure) is shown as skipped.
  for (const dir of ['conformance', 'conformance-postgres']) {
    const matrix = `${results}/${dir}/report.json`
    if (!existsSync(matrix)) continue
    const report = JSON.parse(readFileSync(matrix, 'utf8'))
    const m = report.summary
    for (const c of [...(report.cells ?? []), ...(report.fixtures ?? [])])
      if (c.status === 'fail')
        failures.push(`${dir}: ${c.row ?? c.id} × ${c.scenario ?? 'fixture'}: ${c.reason ?? ''}`)
    passed += m.pass
    failed += m.fail
    skipped += m.notRun
  }
  const rust = `${results}/rust.json`
  if (existsSync(rust)) {
    const r = JSON.parse(readFileSync(rust, 'utf8'))
    passed += r.passed
    failed += r.failed
  }
  if (failures.length > 0)
    process.stdout.write(`\nfailed:\n${failures.map((f) => `  ${f.slice(0, 300)}`).join('\n')}\n`)
  const failedChecks = checks.filter((c) => !c.ok).map((c) => c.name)
  if (failedChecks.length > 0) process.stdout.write(`\nfailed steps: ${failedChecks.join(', ')}\n`)
  process.stdout.write(
    `\n${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}\n`,
  )
  process.exit(failed > 0 ? 1 : 0)
}

step('install', process.execPath, ['scripts/ensure-install.mjs'], { required: true })
if (existsSync('scripts/setup-python.mjs'))
  step('python venv', process.execPath, ['scripts/setup-python.mjs'])
// Compiled stock-SDK drivers (sentry-go, sentry-java) from their registries, cached in .cache/.
step('conformance drivers', process.execPath, ['scripts/setup-drivers.mjs'])
step('build', 'npx', ['--no-install', 'tsc', '-b', 'server'], { required: true })
step('typecheck tests', 'npx', ['--no-install', 'tsc', '-p', 'server/tsconfig.test.json'])
step('typecheck conformance', 'npx', ['--no-install', 'tsc', '-p', 'conformance'])
step('typecheck scripts', 'npx', ['--no-install', 'tsc', '-p', 'scripts'])
step('lint', 'npx', ['--no-install', 'biome', 'ci', '.'])
// Cold cargo builds (the Rust SDK, its wasm32 build, the stock crate driver) happen here, before
// vitest, so they do not compete for the two cores with timing-sensitive conformance tests.
if (existsSync('scripts/test-rust.mjs')) {
  step('rust builds', process.execPath, ['scripts/test-rust.mjs', '--build', 'all'])
}
// vitest's exit code is not needed: its JSON report is counted below.
step('vitest', 'npx', [
  '--no-install',
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${results}/vitest.json`,
])
checks.pop()
if (!existsSync(`${results}/vitest.json`)) checks.push({ name: 'vitest (no report)', ok: false })
// The stock-SDK matrix, through the same runner users point at their deployments
// (conformance/README.md): it starts the built server itself; its exit code is not needed, the
// report's cells are counted above.
step('conformance matrix', process.execPath, [
  'conformance/bin/conformance.mjs',
  '--out',
  `${results}/conformance`,
])
checks.pop()
if (!existsSync(`${results}/conformance/report.json`))
  checks.push({ name: 'conformance matrix (no report)', ok: false })
// The same runner once more with the server on a temporary PostgreSQL: the newest row of each
// SDK family and of each web framework (older versions of one SDK differ in protocol details,
// not in what the store does), so the second backend costs a fraction of the full matrix
// (docs/postgresql.md).
step('conformance matrix on PostgreSQL', process.execPath, [
  'conformance/bin/conformance.mjs',
  '--postgres',
  '--only',
  'node-11,express-11,fastify-11,koa-11,hono-11,browser-11,python,flask,fastapi,django,go,go-http,go-gin,go-echo,java,spring-boot,rust-stock,rust-sdk,otel-js',
  '--out',
  `${results}/conformance-postgres`,
])
checks.pop()
if (!existsSync(`${results}/conformance-postgres/report.json`))
  checks.push({ name: 'conformance matrix on PostgreSQL (no report)', ok: false })
if (existsSync('scripts/test-rust.mjs')) {
  spawnSync(process.execPath, ['scripts/test-rust.mjs'], { stdio: 'inherit' })
  if (!existsSync(`${results}/rust.json`)) checks.push({ name: 'rust (no report)', ok: false })
}
summary()
