import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_PROTECTION } from '../src/config.ts'
import { boundedLabel } from '../src/metrics/labels.ts'
import { type MetricsListener, startMetricsListener } from '../src/metrics/listener.ts'
import { createProject, sentryAuth, type TestProject, testApp } from './support/helpers.ts'
import { eventsEnvelope, outcomeTotals, setQuota } from './support/outcome-helpers.ts'
import { type RunningPrometheus, startPrometheus } from './support/prometheus.ts'

// A real Prometheus (Debian's package) scrapes a real server every second through a run of
// stock-SDK traffic (@sentry/node in a child process), raw envelopes, quota refusals and an
// overload burst: its PromQL answers are the Outcomes API's numbers exactly, the shipped
// shedding rule (with a short `for:`) fires during the overload and resolves after it, and a
// target that goes away leaves its series stale.

const dir = mkdtempSync(join(tmpdir(), 'ingest-prom-'))
let app: FastifyInstance
let listener: MetricsListener
let prom: RunningPrometheus
let port: number
let p: TestProject
let q: TestProject

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** The shipped rules with their windows shortened for a test of seconds, not minutes. */
function shortRules(): string {
  return readFileSync('docs/prometheus/alerts.yml', 'utf8')
    .replace(/for: \d+m/g, 'for: 1s')
    .replace(/\[\d+m\]/g, '[3s]')
}

/** Polls `probe` until it returns a value `done` accepts; gives the last value up after `tries`. */
async function until<T>(probe: () => Promise<T>, done: (v: T) => boolean, tries = 60): Promise<T> {
  let v = await probe()
  for (let i = 0; i < tries && !done(v); i++) {
    await sleep(500)
    v = await probe()
  }
  return v
}

beforeAll(async () => {
  app = await testApp({
    databasePath: join(dir, 'ingest.sqlite'),
    commitDelayMs: 20,
    protection: { ...DEFAULT_PROTECTION, maxQueuedUnits: 8, diskMinFreeBytes: 0 },
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const addr = app.server.address()
  port = typeof addr === 'object' && addr !== null ? addr.port : 0
  const metrics = app.services.metrics
  if (metrics === undefined) throw new Error('metrics are off')
  listener = await startMetricsListener(metrics, { host: '127.0.0.1', port: 0 })
  prom = await startPrometheus({ targets: [new URL(listener.url).host], rules: shortRules() })
  p = await createProject(app, 'sdk')
  q = await createProject(app, 'quota')
}, 120_000)

afterAll(async () => {
  await prom?.stop()
  await listener?.close()
  await app?.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Sends errors and messages through the stock @sentry/node SDK in its own process. */
async function sendWithSentryNode(dsn: string, n: number): Promise<void> {
  const script = `
    import * as Sentry from '@sentry/node'
    Sentry.init({ dsn: process.env.DSN, tracesSampleRate: 0, sendClientReports: true })
    for (let i = 0; i < ${n}; i++) Sentry.captureException(new Error('prometheus run ' + i))
    Sentry.captureMessage('prometheus run message')
    if (!(await Sentry.close(10000))) process.exit(3)
  `
  await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, DSN: dsn },
    timeout: 60_000,
  })
}

/** One raw envelope post; the status. */
async function post(project: TestProject, body: string): Promise<Response> {
  const res = await fetch(`http://127.0.0.1:${port}/api/${project.id}/envelope/`, {
    method: 'POST',
    headers: { 'x-sentry-auth': sentryAuth(project.key) },
    body,
  })
  await res.arrayBuffer()
  return res
}

/** The outcomes of both projects through the API, `outcome|reason|category → quantity`. */
async function apiOutcomes(): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  for (const project of [p, q]) {
    for (const r of await outcomeTotals(app, project.id)) {
      const k = `${r.outcome}|${boundedLabel(r.reason)}|${boundedLabel(r.category)}`
      out[k] = (out[k] ?? 0) + r.quantity
    }
  }
  return out
}

/** The same through PromQL. */
async function promOutcomes(): Promise<Record<string, number>> {
  const rows = await prom.query('sum by (outcome, reason, category) (ingest_outcomes_total)')
  const out: Record<string, number> = {}
  for (const [l, v] of rows) {
    if (v > 0) out[`${l['outcome']}|${l['reason'] ?? ''}|${l['category']}`] = v
  }
  return out
}

let overloaded429 = 0

/** Whether two count maps hold the same counts (in any key order). */
const same = (a: Record<string, number>, b: Record<string, number>): boolean =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v)

describe('a real Prometheus scraping /metrics', () => {
  it('scrapes the metrics listener', async () => {
    const targets = await until(
      () => prom.targets(),
      (t) => t.some((x) => x.health === 'up'),
    )
    expect(targets).toEqual([
      expect.objectContaining({ scrapeUrl: `${listener.url}/metrics`, health: 'up' }),
    ])
  })

  it('fires the shedding rule during an overload and resolves it after', async () => {
    // Traffic first: a stock SDK, raw envelopes, and quota refusals.
    await sendWithSentryNode(`http://${p.key}@127.0.0.1:${port}/${p.id}`, 6)
    expect((await post(p, eventsEnvelope(1, 10))).status).toBe(200)
    expect((await post(p, eventsEnvelope(1, 3))).status).toBe(200)
    await setQuota(app, q.id, { events: 4, window_seconds: 3600 })
    expect((await post(q, eventsEnvelope(100, 3))).status).toBe(200)
    expect((await post(q, eventsEnvelope(200, 3))).status).toBe(429)
    expect((await post(q, eventsEnvelope(300, 2))).status).toBe(429)
    await setQuota(app, q.id, null)

    // Overload: waves of concurrent requests past the queue bound until the rule fires.
    let firing = false
    let n = 0
    for (let wave = 0; wave < 60 && !firing; wave++) {
      const answers = await Promise.all(
        Array.from({ length: 150 }, () => post(p, eventsEnvelope(10_000 + n++, 1))),
      )
      for (const r of answers) {
        expect([200, 429]).toContain(r.status)
        if (r.status === 429 && /overloaded/.test(r.headers.get('x-sentry-rate-limits') ?? ''))
          overloaded429++
      }
      const alerts = await prom.alerts()
      firing = alerts.some((a) => a.name === 'IngestShedding' && a.state === 'firing')
    }
    expect(overloaded429).toBeGreaterThan(0)
    expect(firing, prom.log()).toBe(true)
    // Back to quiet: the rule leaves firing once the shed rate is 0 again.
    const after = await until(
      () => prom.alerts(),
      (a) => !a.some((x) => x.name === 'IngestShedding'),
    )
    expect(after.filter((a) => a.name === 'IngestShedding')).toEqual([])
  }, 180_000)

  it('answers PromQL with exactly the counts the Outcomes API reports', async () => {
    // Shed requests are written as outcomes within a second: wait until the API is still.
    let expected = await apiOutcomes()
    for (;;) {
      await sleep(1500)
      const again = await apiOutcomes()
      if (same(again, expected)) break
      expected = again
    }
    expect(expected['accepted||error']).toBeGreaterThan(6 + 10 + 3 + 4)
    expect(expected['duplicate||error']).toBe(3)
    expect(expected['over_quota|quota_exceeded|error']).toBe(4)
    const shedOutcomes = Object.entries(expected)
      .filter(([k]) => k.startsWith('rejected|overloaded|'))
      .reduce((n, [, v]) => n + v, 0)
    expect(shedOutcomes).toBe(overloaded429)
    const seen = await until(promOutcomes, (v) => same(v, expected))
    expect(seen).toEqual(expected)
    // Shed requests, as the shedding counter has them.
    const [[, shed] = [{}, -1]] = await prom.query('sum(ingest_shed_requests_total)')
    expect(shed).toBe(overloaded429)
    // Group commits were measured: a p99 of their time exists.
    const p99 = await prom.query(
      'histogram_quantile(0.99, sum by (le) (rate(ingest_group_commit_seconds_bucket[1m])))',
    )
    expect(p99.length).toBe(1)
    // The backend's own instruments: the SQLite writer thread's busy time, or the pool.
    if (app.services.store.dialect === 'sqlite') {
      const [[, busy] = [{}, -1]] = await prom.query('ingest_sqlite_writer_busy_seconds_total')
      expect(busy).toBeGreaterThan(0)
    } else {
      expect(await prom.query('ingest_pg_pool_size')).toEqual([[expect.anything(), 4]])
    }
  }, 120_000)

  it('finds a metric that stops moving, and a target that goes away stale', async () => {
    // Nothing is sent now: the outcome counters stop moving.
    const moving = await until(
      () => prom.query('sum(changes(ingest_outcomes_total[4s]))'),
      (r) => r[0]?.[1] === 0,
    )
    expect(moving).toEqual([[{}, 0]])
    // The counter still has a value: a positive control for the staleness check below.
    expect((await prom.query('sum(ingest_outcomes_total)')).length).toBe(1)
    await listener.close()
    const up = await until(
      () => prom.query('up{job="ingest"}'),
      (r) => r[0]?.[1] === 0,
    )
    expect(up.map(([, v]) => v)).toEqual([0])
    // The failed scrape marked every series of the target stale: no value any more.
    expect(await prom.query('ingest_outcomes_total')).toEqual([])
  }, 120_000)
})
