/**
 * `npm run conformance -- [--target URL --token T] [options]`: runs the stock-SDK matrix (and
 * with --fixtures the fixture cases) against a deployed server, or against the built server it
 * starts on a temporary data directory, writes the report in four forms and exits non-zero on a
 * failed cell or, with --baseline, on a regression.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { startTempPostgres, type TempPostgres } from '../../../scripts/postgres/temp-postgres.ts'
import { startServer } from '../harness/server.ts'
import { probeCapabilities } from './capabilities.ts'
import { replayFixtures } from './fixtures.ts'
import { formatRegressions, regressions } from './gate.ts'
import { loadMatrix, MATRIX_PATH } from './matrix.ts'
import { renderHtml, renderJunit, renderMarkdown, totalsLine } from './render.ts'
import { type Report, reportSchema } from './report.ts'
import { runMatrix } from './run.ts'
import { SCENARIOS } from './scenarios/index.ts'

const USAGE = `usage: conformance [--target URL --token ADMIN_TOKEN] [options]

  --target URL          a deployed server (default: start server/dist/main.js on a temp dir)
  --token TOKEN         its admin API token (INGEST_ADMIN_TOKEN on the server)
  --server-env K=V      environment for the server the runner starts (repeatable)
  --postgres            run the server it starts on a temporary PostgreSQL (Debian's
                        postgresql package; DATABASE_URL set for it)
  --out DIR             where report.json, report.md, junit.xml, report.html go
                        (default: conformance-report)
  --baseline FILE       a previous report.json: exit 1 if a cell that passed there fails now
  --fixtures            also replay fixtures/ against the target
  --no-matrix           only the fixtures (with --fixtures)
  --only ROWS           comma-separated row ids of matrix.json
  --scenarios IDS       comma-separated scenario ids
  --matrix FILE         another matrix file (default: conformance/matrix.json)
  --concurrency N       cells at once (default 4)
  --wait-ms MS          how long a scenario waits for the server to show what the SDK sent
                        (default 60000)
`

const list = (value: string | undefined): Set<string> | undefined =>
  value === undefined
    ? undefined
    : new Set(
        value
          .split(',')
          .map((v) => v.trim())
          .filter(Boolean),
      )

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      target: { type: 'string' },
      token: { type: 'string' },
      'server-env': { type: 'string', multiple: true },
      postgres: { type: 'boolean' },
      out: { type: 'string' },
      baseline: { type: 'string' },
      fixtures: { type: 'boolean' },
      'no-matrix': { type: 'boolean' },
      only: { type: 'string' },
      scenarios: { type: 'string' },
      matrix: { type: 'string' },
      concurrency: { type: 'string' },
      'wait-ms': { type: 'string' },
      help: { type: 'boolean' },
    },
  })
  if (values.help) {
    process.stdout.write(USAGE)
    return 0
  }
  if ((values.target === undefined) !== (values.token === undefined)) {
    process.stderr.write(`--target and --token go together\n\n${USAGE}`)
    return 2
  }
  const log = (line: string) => process.stdout.write(`${line}\n`)
  const matrix = loadMatrix(resolve(values.matrix ?? MATRIX_PATH), new Set(SCENARIOS.keys()))
  const baseline =
    values.baseline === undefined
      ? undefined
      : reportSchema.parse(JSON.parse(await readFile(values.baseline, 'utf8')))
  const concurrency = Number(values.concurrency ?? 4)
  const serverEnv: Record<string, string> = {}
  for (const pair of values['server-env'] ?? []) {
    const eq = pair.indexOf('=')
    if (eq <= 0) throw new Error(`--server-env ${pair}: expected NAME=value`)
    serverEnv[pair.slice(0, eq)] = pair.slice(eq + 1)
  }

  if (values.postgres && values.target !== undefined) {
    process.stderr.write(`--postgres starts a server: it does not go with --target\n\n${USAGE}`)
    return 2
  }
  let postgres: TempPostgres | undefined
  if (values.postgres) {
    postgres = await startTempPostgres()
    serverEnv['DATABASE_URL'] = postgres.url
    log(`server on a temporary PostgreSQL: ${postgres.url}`)
  }
  const server =
    values.target === undefined
      ? await startServer({ entry: 'dist', env: { INGEST_TEST_CLOCK: '1', ...serverEnv } }).catch(
          async (err: unknown) => {
            await postgres?.stop()
            throw err
          },
        )
      : undefined
  const url = (values.target ?? server?.url ?? '').replace(/\/+$/, '')
  const token = values.token ?? server?.adminToken ?? ''
  const rows = values['no-matrix'] ? new Set<string>() : list(values.only)
  const scenarios = list(values.scenarios)
  let report: Report
  try {
    const capabilities = await probeCapabilities(url, token)
    for (const [name, c] of Object.entries(capabilities)) {
      log(`capability ${name}: ${c.available ? 'available' : `absent — ${c.reason}`}`)
    }
    report = await runMatrix({
      url,
      token,
      startedByRunner: server !== undefined,
      matrix,
      capabilities,
      ...(rows === undefined ? {} : { rows }),
      ...(scenarios === undefined ? {} : { scenarios }),
      concurrency,
      ...(values['wait-ms'] === undefined ? {} : { readBackMs: Number(values['wait-ms']) }),
      ci: process.env['CI'] === 'true' || process.env['CI'] === '1',
      log,
      ...(values.fixtures ? { fixtures: () => replayFixtures(url, token, concurrency, log) } : {}),
    })
  } finally {
    await server?.stop()
    await postgres?.stop()
  }

  const out = resolve(values.out ?? 'conformance-report')
  await mkdir(out, { recursive: true })
  await writeFile(join(out, 'report.json'), `${JSON.stringify(report, null, 2)}\n`)
  await writeFile(join(out, 'report.md'), renderMarkdown(report))
  await writeFile(join(out, 'junit.xml'), renderJunit(report))
  await writeFile(join(out, 'report.html'), renderHtml(report))

  let exit = report.summary.fail > 0 ? 1 : 0
  if (baseline !== undefined) {
    const found = regressions(baseline, report)
    // The difference comes first: it is what decides a release.
    log(formatRegressions(found))
    if (found.length > 0) exit = 1
  }
  log(renderMarkdown(report))
  log(`report: ${out}/report.{json,md,html}, ${out}/junit.xml`)
  log(totalsLine(report))
  return exit
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    process.stderr.write(`conformance: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = 2
  },
)
