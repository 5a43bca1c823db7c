import type { FastifyInstance } from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import { boundedLabel } from '../src/metrics/labels.ts'
import { type MetricsListener, startMetricsListener } from '../src/metrics/listener.ts'
import {
  ADMIN,
  createProject,
  eid,
  envelopeOf,
  postEnvelope,
  sendItems,
  type TestProject,
  testApp,
} from './support/helpers.ts'
import { parseMetrics, type Sample, sampleValue, sumBy } from './support/metrics-text.ts'
import { eventsEnvelope, outcomeTotals, setQuota } from './support/outcome-helpers.ts'
import { startWebhookReceiver } from './support/receivers.ts'

let app: FastifyInstance | undefined
let listener: MetricsListener | undefined

afterEach(async () => {
  await listener?.close()
  await app?.close()
  listener = undefined
  app = undefined
})

/** Builds an app and starts its metrics listener on a free loopback port. */
async function start(
  overrides: Parameters<typeof testApp>[0] = {},
): Promise<{ a: FastifyInstance; scrape: () => Promise<Sample[]> }> {
  const a = await testApp(overrides)
  app = a
  const metrics = a.services.metrics
  if (metrics === undefined) throw new Error('metrics are off')
  const l = await startMetricsListener(metrics, {
    host: '127.0.0.1',
    port: 0,
    token: overrides.metrics?.token,
  })
  listener = l
  const scrape = async () => {
    const res = await fetch(`${l.url}/metrics`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
    return parseMetrics(await res.text())
  }
  return { a, scrape }
}

/** The project's outcomes through the API as `outcome|reason|category → quantity`. */
async function apiOutcomes(a: FastifyInstance, projects: TestProject[]) {
  const out: Record<string, number> = {}
  for (const p of projects) {
    for (const r of await outcomeTotals(a, p.id)) {
      const k = `${r.outcome}|${boundedLabel(r.reason)}|${boundedLabel(r.category)}`
      out[k] = (out[k] ?? 0) + r.quantity
    }
  }
  return out
}

const outcomeKey = (l: Record<string, string>) => `${l['outcome']}|${l['reason']}|${l['category']}`

describe('GET /metrics', () => {
  it('counts exactly the outcomes the Outcomes API reports, on the path that writes them', async () => {
    const { a, scrape } = await start()
    const p = await createProject(a, 'one')
    const q = await createProject(a, 'two')
    expect((await postEnvelope(a, p.id, p.key, eventsEnvelope(1, 5))).statusCode).toBe(200)
    // A resend: duplicates; an unsupported item; a client report with a reason of odd shape.
    expect((await postEnvelope(a, p.id, p.key, eventsEnvelope(1, 2))).statusCode).toBe(200)
    const mixed = await sendItems(a, p, [
      ['transaction', { type: 'transaction' }],
      [
        'client_report',
        {
          discarded_events: [
            { reason: 'queue_overflow', category: 'error', quantity: 4 },
            { reason: 'made up <b>reason</b>', category: 'error', quantity: 2 },
          ],
        },
      ],
    ])
    expect(mixed.statusCode).toBe(200)
    // Rejected: broken JSON in an event, and a wrong key.
    const broken = await postEnvelope(a, p.id, p.key, envelopeOf([['event', '{nope']]))
    expect(broken.statusCode).toBe(400)
    const wrongKey = await postEnvelope(a, p.id, q.key, eventsEnvelope(50, 1))
    expect(wrongKey.statusCode).toBe(403)
    // Over quota: 3 of 5 fit, the request is answered 429.
    await setQuota(a, q.id, { events: 3, window_seconds: 3600 })
    expect((await postEnvelope(a, q.id, q.key, eventsEnvelope(100, 5))).statusCode).toBe(429)

    const expected = await apiOutcomes(a, [p, q])
    expect(expected).toMatchObject({
      'accepted||error': 8,
      'duplicate||error': 2,
      'over_quota|quota_exceeded|error': 2,
      'client_discard|queue_overflow|error': 4,
      'client_discard|other|error': 2,
      'unsupported|transaction|transaction': 1,
    })
    const samples = await scrape()
    expect(sumBy(samples, 'ingest_outcomes_total', outcomeKey)).toEqual(expected)
    // Requests by endpoint and status.
    const requests = sumBy(
      samples,
      'ingest_requests_total',
      (l) => `${l['endpoint']} ${l['status']}`,
    )
    expect(requests).toEqual({
      'envelope 200': 3,
      'envelope 400': 1,
      'envelope 403': 1,
      'envelope 429': 1,
    })
    // Every committed write is in the histograms (at least the six ingest requests').
    const commits = sampleValue(samples, 'ingest_group_commit_units_count') ?? 0
    expect(commits).toBeGreaterThanOrEqual(6)
    expect(sampleValue(samples, 'ingest_group_commit_seconds_count')).toBe(commits)
    expect(sampleValue(samples, 'ingest_disk_guard_active')).toBe(0)
    expect(sampleValue(samples, 'ingest_requests_in_flight')).toBe(0)
    expect(sampleValue(samples, 'ingest_queued_units')).toBe(0)
    expect(sampleValue(samples, 'ingest_shed_requests_total', { stage: 'admission' })).toBe(0)
    // Process metrics, and the event loop's delay.
    // (CPU seconds count from the first scrape of the process, so may still be 0 here.)
    expect(sampleValue(samples, 'process_resident_memory_bytes')).toBeGreaterThan(1024 * 1024)
    expect(sampleValue(samples, 'process_cpu_user_seconds_total')).toBeGreaterThanOrEqual(0)
    expect(samples.some((s) => s.name === 'nodejs_eventloop_lag_p99_seconds')).toBe(true)
    const backend = a.services.store.dialect
    if (backend === 'postgres') {
      expect(sampleValue(samples, 'ingest_pg_pool_size')).toBe(4)
      expect(sampleValue(samples, 'ingest_pg_pool_waiting')).toBe(0)
      expect(sampleValue(samples, 'ingest_pg_change_feed_connected')).toBe(1)
      expect(sampleValue(samples, 'ingest_pg_change_feed_reconnects_total')).toBe(0)
      // The outcomes read above folded the pending counter deltas first.
      expect(
        sampleValue(samples, 'ingest_pg_counter_folds_total', { kind: 'read' }),
      ).toBeGreaterThan(0)
      expect(sampleValue(samples, 'ingest_pg_counter_fold_rows_total')).toBeGreaterThan(0)
      expect(sampleValue(samples, 'ingest_pg_counter_fold_seconds_total')).toBeGreaterThan(0)
    } else {
      // In memory: no writer thread; and never the other backend's instruments.
      expect(sampleValue(samples, 'ingest_pg_pool_size')).toBeUndefined()
      expect(sampleValue(samples, 'ingest_pg_counter_fold_rows_total')).toBeUndefined()
      expect(sampleValue(samples, 'ingest_sqlite_writer_busy_seconds_total')).toBeUndefined()
    }
  })

  it('labels by project only when asked, for at most the cap', async () => {
    const { a, scrape } = await start({
      metrics: { enabled: true, host: '127.0.0.1', port: 0, token: undefined, projectLabels: 1 },
    })
    const p = await createProject(a, 'one')
    const q = await createProject(a, 'two')
    expect((await postEnvelope(a, p.id, p.key, eventsEnvelope(1, 2))).statusCode).toBe(200)
    expect((await postEnvelope(a, q.id, q.key, eventsEnvelope(1, 3))).statusCode).toBe(200)
    const byProject = sumBy(await scrape(), 'ingest_outcomes_total', (l) => l['project'] ?? '')
    expect(byProject).toEqual({ [String(p.id)]: 2, other: 3 })
  })

  it('is not on the public port without a token, and only to its bearer with one', async () => {
    const plain = await testApp()
    try {
      expect((await plain.inject({ url: '/metrics' })).statusCode).toBe(404)
    } finally {
      await plain.close()
    }
    const { a, scrape } = await start({
      metrics: { enabled: true, host: '127.0.0.1', port: 0, token: 's3cret', projectLabels: 0 },
    })
    expect((await a.inject({ url: '/metrics' })).statusCode).toBe(401)
    expect((await a.inject({ url: '/metrics', headers: ADMIN })).statusCode).toBe(401)
    const ok = await a.inject({ url: '/metrics', headers: { authorization: 'Bearer s3cret' } })
    expect(ok.statusCode).toBe(200)
    expect(ok.body).toContain('# TYPE ingest_outcomes_total counter')
    // The listener asks for it too.
    await expect(scrape()).rejects.toThrow()
    const res = await fetch(`${listener?.url}/metrics`, {
      headers: { authorization: 'Bearer s3cret' },
    })
    expect(res.status).toBe(200)
  })

  it('is off entirely with METRICS_ENABLED=0', async () => {
    const a = await testApp({
      metrics: { enabled: false, host: '127.0.0.1', port: 0, token: 'x', projectLabels: 0 },
    })
    app = a
    expect(a.services.metrics).toBeUndefined()
    expect((await a.inject({ url: '/metrics' })).statusCode).toBe(404)
    const p = await createProject(a)
    expect((await postEnvelope(a, p.id, p.key, eventsEnvelope(1, 1))).statusCode).toBe(200)
  })

  it('bounds label values a client chooses', async () => {
    const { a, scrape } = await start()
    const p = await createProject(a)
    const discards = Array.from({ length: 30 }, (_, i) => ({
      reason: `reason_${i}`,
      category: i % 2 === 0 ? 'error' : 'bad category',
      quantity: 1,
    }))
    const res = await sendItems(a, p, [['client_report', { discarded_events: discards }]], {
      event_id: eid(1),
    })
    expect(res.statusCode).toBe(200)
    const samples = await scrape()
    const categories = sumBy(samples, 'ingest_outcomes_total', (l) => l['category'] ?? '')
    // A category Relay does not know is counted as `unknown` at ingest (outcome-names.ts).
    expect(categories).toEqual({ error: 15, unknown: 15, internal: 1 })
  })

  it('counts alert delivery attempts by channel and result, and shows the cron clock', async () => {
    const hook = await startWebhookReceiver()
    try {
      const { a, scrape } = await start({
        alerts: {
          pollMs: 20,
          backoffBaseMs: 20,
          backoffMaxMs: 500,
          maxAttempts: 4,
          leaseMs: 60_000,
          sendTimeoutMs: 10_000,
        },
      })
      await a.ready()
      const p = await createProject(a)
      const rule = await a.inject({
        method: 'POST',
        url: `/api/0/projects/${p.id}/alert-rules/`,
        headers: ADMIN,
        payload: {
          name: 'new issues',
          conditions: [{ type: 'new_issue' }],
          channel: { type: 'webhook', url: hook.url },
        },
      })
      expect(rule.statusCode).toBe(201)
      hook.failNext(2)
      expect((await postEnvelope(a, p.id, p.key, eventsEnvelope(1, 1))).statusCode).toBe(200)
      await hook.waitForAccepted(1)
      let samples = await scrape()
      for (let i = 0; i < 100; i++) {
        if (sampleValue(samples, 'ingest_alert_deliveries_total', { result: 'sent' }) === 1) break
        await new Promise((r) => setTimeout(r, 20))
        samples = await scrape()
      }
      expect(
        sumBy(samples, 'ingest_alert_deliveries_total', (l) => `${l['channel']} ${l['result']}`),
      ).toEqual({ 'webhook retry': 2, 'webhook sent': 1 })
      expect(hook.requests).toHaveLength(3)
      // The cron clock ticked once at start (held the lease: nothing was missed).
      expect(sampleValue(samples, 'ingest_cron_clock_lag_seconds')).toBeGreaterThanOrEqual(0)
      expect(sampleValue(samples, 'ingest_cron_runs_recorded_total')).toBe(0)
    } finally {
      await hook.close()
    }
  })
})
