import type { FastifyInstance } from 'fastify'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  ADMIN,
  createProject,
  eid,
  envelopeOf,
  freezeDate,
  postEnvelope,
  type TestProject,
  testApp,
} from './support/helpers.ts'
import { outcomeMap, storedEvents } from './support/outcome-helpers.ts'

const HOUR = 3_600_000
const NOW = Date.UTC(2026, 0, 5, 10, 30, 0)

let app: FastifyInstance
let p: TestProject

freezeDate(NOW)

beforeEach(async () => {
  app = await testApp()
  p = await createProject(app)
})

afterEach(async () => {
  await app.close()
})

/** The hour buckets (ISO start → client_discard count) between two times. */
async function discardsByHour(since: number, until: number): Promise<Record<string, number>> {
  const res = await app.inject({
    url: `/api/0/projects/${p.id}/outcomes/series/?since=${since / 1000}&until=${until / 1000}`,
    headers: ADMIN,
  })
  const buckets = res.json<{ buckets: { start: string; outcomes: Record<string, number> }[] }>()
    .buckets
  const out: Record<string, number> = {}
  for (const b of buckets) {
    const n = b.outcomes['client_discard'] ?? 0
    if (n > 0) out[b.start] = n
  }
  return out
}

describe('client_report items', () => {
  it('become client_discard outcomes by reason and category; Relay-only arrays are ignored', async () => {
    const report = {
      timestamp: NOW / 1000 - 10,
      discarded_events: [
        { reason: 'ratelimit_backoff', category: 'error', quantity: 3 },
        { reason: 'sample_rate', category: 'transaction', quantity: 40 },
        { reason: 'sample_rate', category: 'span', quantity: 41 },
        { reason: 'network_error', category: 'error', quantity: 0 },
        { reason: 'x'.repeat(201), category: 'error', quantity: 1 },
        { reason: 'queue_overflow', category: 'error', quantity: -2 },
        { reason: 'queue_overflow', category: 'error' },
        'junk',
      ],
      rate_limited_events: [{ reason: 'quota', category: 'error', quantity: 9 }],
      filtered_events: [{ reason: 'localhost', category: 'error', quantity: 9 }],
    }
    const second = {
      timestamp: new Date(NOW - 5000).toISOString(),
      discarded_events: [{ reason: 'ratelimit_backoff', category: 'error', quantity: 2 }],
    }
    const res = await postEnvelope(
      app,
      p.id,
      p.key,
      envelopeOf([
        ['client_report', report],
        ['client_report', second],
      ]),
    )
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({})
    expect(await outcomeMap(app, p.id)).toEqual({
      'accepted/internal': 2,
      'client_discard:ratelimit_backoff/error': 5,
      'client_discard:sample_rate/transaction': 40,
      'client_discard:sample_rate/span': 41,
    })
  })

  it('count a reason or category that is not a known one as other / unknown', async () => {
    // Stored as given, each made-up name was a row of its own on the Outcomes page.
    const discarded_events = [
      ...Array.from({ length: 200 }, (_, i) => ({
        reason: `reason_${i}`,
        category: `category_${i}`,
        quantity: 1,
      })),
      { reason: 'before_send', category: 'made_up', quantity: 2 },
      { reason: 'made up <b>reason</b>', category: 'log_item', quantity: 3 },
      { reason: 'no_parent_span', category: 'span', quantity: 4 },
    ]
    const res = await postEnvelope(
      app,
      p.id,
      p.key,
      envelopeOf([['client_report', { discarded_events }]]),
    )
    expect(res.statusCode).toBe(200)
    expect(await outcomeMap(app, p.id)).toEqual({
      'accepted/internal': 1,
      'client_discard:other/unknown': 200,
      'client_discard:before_send/unknown': 2,
      'client_discard:other/log_item': 3,
      'client_discard:no_parent_span/span': 4,
    })
  })

  it('are dated by the report timestamp, corrected by sent_at for a drifting clock', async () => {
    const twoHoursAgo = NOW - 2 * HOUR
    const d = (reason: string) => ({
      discarded_events: [{ reason, category: 'error', quantity: 1 }],
    })
    // Client clock right: filed two hours back.
    await postEnvelope(
      app,
      p.id,
      p.key,
      envelopeOf([['client_report', { timestamp: twoHoursAgo / 1000, ...d('a') }]], {
        sent_at: new Date(NOW).toISOString(),
      }),
    )
    // Client clock 3 days behind: sent_at shows the drift, the time is corrected to NOW - 2 h.
    const skew = 3 * 24 * HOUR
    await postEnvelope(
      app,
      p.id,
      p.key,
      envelopeOf([['client_report', { timestamp: (twoHoursAgo - skew) / 1000, ...d('b') }]], {
        sent_at: new Date(NOW - skew).toISOString(),
      }),
    )
    // In the future or very old: filed at receive time. No timestamp: receive time.
    await postEnvelope(
      app,
      p.id,
      p.key,
      envelopeOf([['client_report', { timestamp: NOW / 1000 + 7200, ...d('c') }]]),
    )
    await postEnvelope(
      app,
      p.id,
      p.key,
      envelopeOf([['client_report', { timestamp: 1_000_000, ...d('d') }]]),
    )
    await postEnvelope(app, p.id, p.key, envelopeOf([['client_report', d('e')]]))
    const hour = (ms: number) => new Date(Math.floor(ms / HOUR) * HOUR).toISOString()
    expect(await discardsByHour(NOW - 5 * HOUR, NOW + HOUR)).toEqual({
      [hour(twoHoursAgo)]: 2,
      [hour(NOW)]: 3,
    })
  })

  it('never fail the envelope: an unreadable report is counted and the event is kept', async () => {
    const res = await postEnvelope(
      app,
      p.id,
      p.key,
      envelopeOf([
        ['event', { event_id: eid(1), message: 'kept' }],
        ['client_report', '{"discarded_events": [ nope'],
        ['client_report', '[1, 2]'],
        ['client_report', { discarded_events: 'many' }],
      ]),
    )
    expect(res.statusCode).toBe(200)
    expect(await storedEvents(app, p.id)).toBe(1)
    expect(await outcomeMap(app, p.id)).toEqual({
      'accepted/error': 1,
      'rejected:invalid_client_report/internal': 3,
    })
  })

  it('are attributed to the key that sent them (component filter)', async () => {
    const k = await app.services.store.createKey(p.id, 'cli', 'cli', 'c'.repeat(32))
    app.services.keys.invalidate()
    const report = envelopeOf([
      [
        'client_report',
        { discarded_events: [{ reason: 'before_send', category: 'error', quantity: 7 }] },
      ],
    ])
    await postEnvelope(app, p.id, k.publicKey, report)
    expect(await outcomeMap(app, p.id, { component: 'cli', category: 'error' })).toEqual({
      'client_discard:before_send/error': 7,
    })
    expect(await outcomeMap(app, p.id, { key_id: '1', category: 'error' })).toEqual({})
  })
})
