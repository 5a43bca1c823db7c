/**
 * The runner as users run it: the CLI against a separately started server (`--target`), with
 * the fixture replay; on the built server it starts itself (`--server-env`); and as a release gate against a deliberately broken deployment — a
 * server behind a front that answers envelopes 200 and drops them — with the first run's
 * report as the baseline.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execa } from 'execa'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cleanEnv } from '../harness/env.ts'
import { repoRoot } from '../harness/paths.ts'
import { type RunningServer, startServer } from '../harness/server.ts'
import { type Report, reportSchema, summarize } from './report.ts'

let server: RunningServer
let out: string
beforeAll(async () => {
  // No INGEST_TEST_CLOCK: the runner must see that and report missed-run as not run.
  server = await startServer()
  out = await mkdtemp(join(tmpdir(), 'conformance-runner-'))
})
afterAll(async () => {
  await server?.stop()
  if (out !== undefined) await rm(out, { recursive: true, force: true })
})

/** Runs the CLI; resolves with its exit code and output. */
async function cli(args: string[]) {
  const result = await execa(process.execPath, ['conformance/bin/conformance.mjs', ...args], {
    cwd: repoRoot,
    env: cleanEnv(),
    extendEnv: false,
    reject: false,
    all: true,
    stdin: 'ignore',
    timeout: 300_000,
  })
  return { code: result.exitCode, output: result.all ?? '' }
}

/** A front for the server that accepts envelopes and throws them away: a broken deployment. */
async function startDroppingFront(target: string) {
  const front = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      if (req.method === 'POST' && /\/envelope\/?(\?|$)/.test(req.url ?? '')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
        return
      }
      const headers: Record<string, string> = {}
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string' && name !== 'host' && name !== 'content-length') {
          headers[name] = value
        }
      }
      const method = req.method ?? 'GET'
      void fetch(`${target}${req.url ?? '/'}`, {
        method,
        headers,
        ...(method === 'GET' || method === 'HEAD' ? {} : { body: Buffer.concat(chunks) }),
      }).then(
        async (upstream) => {
          const body = Buffer.from(await upstream.arrayBuffer())
          res
            .writeHead(upstream.status, {
              'content-type': upstream.headers.get('content-type') ?? 'application/json',
            })
            .end(body)
        },
        () => res.writeHead(502).end(),
      )
    })
  })
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve))
  const { port } = front.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        front.closeAllConnections()
        front.close(() => resolve())
      }),
  }
}

const cell = (report: Report, row: string, scenario: string) =>
  report.cells.find((c) => c.row === row && c.scenario === scenario)

describe.sequential('conformance runner', () => {
  let baseline: string

  it('--target: runs the cells against a deployed server, replays the fixtures, writes four reports', async () => {
    const { code, output } = await cli([
      ...['--target', server.url, '--token', server.adminToken],
      ...['--only', 'node-11', '--scenarios', 'lands-and-groups,missed-run,otlp-logs'],
      ...['--fixtures', '--out', join(out, 'first')],
    ])
    expect(code, output).toBe(0)
    expect(output).toMatch(/\[1\/1\] node-11 × lands-and-groups: pass/)
    baseline = join(out, 'first', 'report.json')
    const report = reportSchema.parse(JSON.parse(await readFile(baseline, 'utf8')))
    expect(report.target).toEqual({ url: server.url, startedByRunner: false })

    const landed = cell(report, 'node-11', 'lands-and-groups')
    expect(landed?.status).toBe('pass')
    // Evidence: what the SDK sent and was answered, and what was read back.
    const sent = landed?.evidence?.requests ?? []
    expect(sent.filter((r) => r.itemTypes.includes('event')).map((r) => r.status)).toEqual([
      200, 200, 200, 200,
    ])
    expect(landed?.evidence?.readBack.map((r) => r.label)).toContain('issues')
    expect(landed?.evidence?.sdk?.package).toBe('@sentry/node')

    const missed = cell(report, 'node-11', 'missed-run')
    expect(missed?.status).toBe('not-run')
    expect(missed?.reason).toMatch(/no test clock.*INGEST_TEST_CLOCK=1/)
    expect(cell(report, 'node-11', 'otlp-logs')?.status).toBe('unsupported')
    expect(summarize(report.cells)).toEqual({ pass: 1, fail: 0, unsupported: 1, notRun: 1 })

    // Every fixture case that is not pending passes against the target.
    expect(report.fixtures.length).toBeGreaterThan(10)
    expect(
      report.fixtures.filter((f) => f.id.startsWith('otlp/') && f.status === 'pass').length,
    ).toBeGreaterThanOrEqual(2)
    expect(report.fixtures.filter((f) => f.status === 'fail')).toEqual([])
    expect(report.fixtures.filter((f) => f.status === 'pass').length).toBeGreaterThan(10)

    const md = await readFile(join(out, 'first', 'report.md'), 'utf8')
    expect(md).toContain('| @sentry/node 11 (@sentry/node ')
    expect(md).toMatch(/node-11 × missed-run\*\*: ⏸ not run — the target has no test clock/)
    const junit = await readFile(join(out, 'first', 'junit.xml'), 'utf8')
    expect(junit).toContain('<testcase classname="conformance.node-11" name="lands-and-groups"')
    expect(junit).toMatch(/name="missed-run"[^>]*>\s*<skipped message="not-run: /)
    const html = await readFile(join(out, 'first', 'report.html'), 'utf8')
    expect(html).toContain('<details id="cell-node-11-lands-and-groups"')
    expect(html).toContain(`POST /api/`)
  })

  it('without --target: starts the built server itself, with --server-env passed to it', async () => {
    // A 100-byte event limit makes every SDK event a 413: proof the setting reached the server.
    const { code, output } = await cli([
      ...['--server-env', 'MAX_EVENT_SIZE=100', '--only', 'node-11'],
      ...['--scenarios', 'lands-and-groups', '--wait-ms', '3000', '--out', join(out, 'own')],
    ])
    expect(code, output).toBe(1)
    const report = reportSchema.parse(
      JSON.parse(await readFile(join(out, 'own', 'report.json'), 'utf8')),
    )
    expect(report.target.startedByRunner).toBe(true)
    expect(report.capabilities['test-clock']?.available).toBe(true)
    const failed = cell(report, 'node-11', 'lands-and-groups')
    expect(failed?.status).toBe('fail')
    expect(failed?.evidence?.requests.map((r) => r.status)).toContain(413)
  })

  it('--baseline: a cell that passed before and fails now fails the run, difference printed first', async () => {
    const front = await startDroppingFront(server.url)
    try {
      const { code, output } = await cli([
        ...['--target', front.url, '--token', server.adminToken],
        ...['--only', 'node-11', '--scenarios', 'lands-and-groups', '--wait-ms', '3000'],
        ...['--baseline', baseline, '--out', join(out, 'second')],
      ])
      expect(code, output).toBe(1)
      const regressions = output.indexOf('REGRESSIONS against the baseline (1):')
      expect(regressions, output).toBeGreaterThan(-1)
      expect(regressions).toBeLessThan(output.indexOf('# Conformance report'))
      expect(output).toContain('node-11 × lands-and-groups: pass → fail')
      const report = reportSchema.parse(
        JSON.parse(await readFile(join(out, 'second', 'report.json'), 'utf8')),
      )
      const failed = cell(report, 'node-11', 'lands-and-groups')
      expect(failed?.status).toBe('fail')
      expect(failed?.evidence?.error).toMatch(/two issues with two events each/)
      // The evidence shows the SDK's requests were answered 200 although nothing was stored.
      expect(failed?.evidence?.requests.map((r) => r.status)).toContain(200)
    } finally {
      await front.close()
    }
  })
})
