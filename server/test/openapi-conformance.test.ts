/**
 * The generated OpenAPI document against the real server process: `openapi-spec-validator`
 * (the reference validator client generators rely on) must accept it, and a schemathesis run
 * over every operation must find no 5xx, no answer that breaks its documented schema, status
 * codes or content type, no schema-valid request refused (`positive_data_acceptance`: the
 * document is as strict as the server; the few rules JSON Schema cannot state are listed in
 * `schemathesis.toml`), and a 405 with `Allow` for a method the path is not routed for. Runs the built `server/dist/main.js`, as production does, on a
 * temporary data dir with the test clock on (so its route is documented and tested too).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const root = resolve(import.meta.dirname, '../..')
const venvBin = join(root, 'conformance', '.venv-openapi', 'bin')
const main = join(root, 'server', 'dist', 'main.js')
const stConfig = join(root, 'server', 'test', 'schemathesis.toml')

/** Examples per operation: 26 operations × 10 stay near one minute on two busy cores. */
const MAX_EXAMPLES = '10'

let server: ChildProcess | undefined
let url = ''
let dataDir = ''
const token = randomBytes(16).toString('hex')
const logs: string[] = []

beforeAll(async () => {
  // `npm test` builds and makes the venv before vitest; run alone, say what is missing.
  expect(existsSync(main), `${main} missing: run npx tsc -b server`).toBe(true)
  expect(existsSync(join(venvBin, 'st')), 'no venv: run node scripts/setup-python.mjs').toBe(true)
  dataDir = await mkdtemp(join(tmpdir(), 'ingest-openapi-'))
  server = spawn(process.execPath, [main], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env['PATH'] ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      INGEST_ADMIN_TOKEN: token,
      INGEST_TEST_CLOCK: '1',
      CRON_CLOCK_INTERVAL_MS: '0',
      LOG_LEVEL: 'warn',
      SHUTDOWN_DRAIN_MS: '0',
      // A free port for the metrics listener: the default 9464 may be another server's.
      METRICS_PORT: '0',
    },
  })
  const child = server
  child.stderr?.on('data', (chunk: Buffer) => logs.push(chunk.toString()))
  url = await new Promise<string>((done, fail) => {
    child.once('exit', (code) => fail(new Error(`server exited (${code}): ${logs.join('')}`)))
    createInterface({ input: child.stdout ?? process.stdin }).on('line', (line) => {
      logs.push(line)
      // The start-up line: `{"msg":"listening","url":…}`, with `metricsUrl` when metrics listen.
      const m = /^\{"msg":"listening","url":"([^"]+)"[,}]/.exec(line)
      if (m?.[1] !== undefined) done(m[1])
    })
  })
}, 60_000)

afterAll(async () => {
  if (server !== undefined && server.exitCode === null) {
    const exited = new Promise((done) => server?.once('exit', done))
    server.kill('SIGTERM')
    await exited
  }
  if (dataDir !== '') await rm(dataDir, { recursive: true, force: true })
})

/** Runs a tool of the venv; returns its exit status and output. */
function venvTool(name: string, args: string[], timeoutMs: number) {
  const r = spawnSync(join(venvBin, name), args, {
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { PATH: process.env['PATH'] ?? '', HOME: tmpdir(), NO_COLOR: '1' },
    cwd: dataDir,
  })
  return { status: r.status, output: `${r.stdout}\n${r.stderr}` }
}

describe('the served OpenAPI document', () => {
  it('passes openapi-spec-validator', async () => {
    const res = await fetch(`${url}/api/0/openapi.json`)
    expect(res.status).toBe(200)
    const file = join(dataDir, 'openapi.json')
    await writeFile(file, await res.text())
    const r = venvTool('openapi-spec-validator', [file], 60_000)
    expect(r.output).toContain('OK')
    expect(r.status, r.output).toBe(0)
  }, 90_000)

  it('holds against schemathesis: no 5xx, every answer as documented, valid input accepted', () => {
    const r = venvTool(
      'st',
      [
        '--config-file',
        stConfig,
        'run',
        `${url}/api/0/openapi.json`,
        '--header',
        `Authorization: Bearer ${token}`,
        '--checks',
        [
          'not_a_server_error',
          'response_schema_conformance',
          'status_code_conformance',
          'content_type_conformance',
          'positive_data_acceptance',
          'unsupported_method',
        ].join(','),
        '--max-examples',
        MAX_EXAMPLES,
        '--no-color',
      ],
      420_000,
    )
    // Every operation of the document was tested (their number grows with the API).
    const m = /Selected: (\d+)\/(\d+)[\s\S]*Tested: (\d+)/.exec(r.output)
    expect(Number(m?.[2]), r.output).toBeGreaterThan(20)
    expect(Number(m?.[3]), r.output).toBe(Number(m?.[2]))
    expect(r.status, r.output).toBe(0)
    // Nothing the fuzzer sent may have made the server log an error.
    expect(logs.filter((l) => /"level":(50|60)/.test(l))).toEqual([])
  }, 480_000)
})
