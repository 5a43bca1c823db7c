import { gzipSync } from 'node:zlib'
import type { FastifyInstance } from 'fastify'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { DEFAULT_LIMITS } from '../src/config.ts'
import {
  ADMIN,
  createProject,
  eid,
  envelopeOf,
  freezeDate,
  postEnvelope,
  sentryAuth,
  type TestProject,
  testApp,
} from './support/helpers.ts'
import {
  eventsEnvelope,
  outcomeMap,
  outcomeTotals,
  setQuota,
  storedEvents,
} from './support/outcome-helpers.ts'

const HOUR = 3_600_000
const T0 = Date.UTC(2026, 0, 5, 10, 0, 0)

let app: FastifyInstance
let p: TestProject

freezeDate(T0 + 5 * 60_000)

beforeEach(async () => {
  app = await testApp({ limits: { ...DEFAULT_LIMITS, maxEvent: 4096, maxCompressedBody: 64_000 } })
  p = await createProject(app)
})

afterEach(async () => {
  await app.close()
})

/** A second, labelled DSN key of the project (component key). */
async function componentKey(component: string): Promise<{ id: number; key: string }> {
  const publicKey = `${component
    .padEnd(8, '0')
    .slice(0, 8)
    .replace(/[^0-9a-f]/g, 'c')}${'0'.repeat(23)}1`
  const k = await app.services.store.createKey(p.id, component, component, publicKey)
  app.services.keys.invalidate()
  return { id: k.id, key: k.publicKey }
}

describe('unsupported items', () => {
  it('are dropped and counted by type while the supported items are delivered', async () => {
    const env = envelopeOf([
      ['transaction', { type: 'transaction', spans: [], start_timestamp: 1, timestamp: 2 }],
      ['event', { event_id: eid(1), message: 'kept' }],
      ['log', { version: 2, items: [{ body: 'x', level: 'info', timestamp: 1 }] }],
      ['attachment', 'raw bytes'],
      ['span', { version: 2, items: [] }],
      ['profile', {}],
      ['replay_event', {}],
      ['replay_recording', 'rrweb'],
      ['statsd', 'a:1|c'],
      ['hologram_2031', '{}'],
    ])
    const res = await postEnvelope(app, p.id, p.key, env)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ id: eid(1) })
    expect(await storedEvents(app, p.id)).toBe(1)
    expect(await outcomeMap(app, p.id)).toEqual({
      'accepted/error': 1,
      'unsupported:attachment/attachment': 1,
      'unsupported:unknown/default': 1,
      'unsupported:log/log_item': 1,
      'unsupported:profile/profile': 1,
      'unsupported:replay_event/replay': 1,
      'unsupported:replay_recording/replay': 1,
      'unsupported:span/span': 1,
      'unsupported:statsd/default': 1,
      'unsupported:transaction/transaction': 1,
    })
  })

  it('count item types Relay does not know under one reason, however many there are', async () => {
    // Each made-up type was a row of its own: any sender could grow the Outcomes page without end.
    const env = envelopeOf(
      Array.from({ length: 300 }, (_, i): [string, string] => [`made_up_${i}`, '{}']),
    )
    expect((await postEnvelope(app, p.id, p.key, env)).statusCode).toBe(200)
    expect(await outcomeMap(app, p.id)).toEqual({ 'unsupported:unknown/default': 300 })
  })

  it('count a container item once per record its payload holds, whatever item_count says', async () => {
    // What @sentry/node 11 and sentry-go's log integrations send: log and span v2 containers.
    const logs = { items: [1, 2, 3].map((i) => ({ body: `l${i}`, level: 'info', timestamp: 1 })) }
    const spans = { items: [{ span_id: 'a' }, { span_id: 'b' }] }
    const env = [
      '{}',
      JSON.stringify({
        type: 'log',
        item_count: 3,
        content_type: 'application/vnd.sentry.items.log+json',
      }),
      JSON.stringify(logs),
      JSON.stringify({ type: 'span', item_count: 2 }),
      JSON.stringify(spans),
      // The header's count is not believed: these are 3 records each, the last 1 (none held).
      JSON.stringify({ type: 'log', item_count: 'many' }),
      JSON.stringify(logs),
      JSON.stringify({ type: 'log', item_count: -4 }),
      JSON.stringify(logs),
      '{"type":"log","item_count":1e300}',
      '{"items":[]}',
      // Not a container payload: one.
      JSON.stringify({ type: 'log', item_count: 100_000 }),
      'not json',
    ].join('\n')
    const res = await postEnvelope(app, p.id, p.key, env)
    expect(res.statusCode).toBe(200)
    expect(await outcomeMap(app, p.id)).toEqual({
      'unsupported:log/log_item': 11,
      'unsupported:span/span': 2,
    })
  })

  it('include a transaction sent to /store/, which never becomes an issue', async () => {
    // Old SDKs posted transactions to /store/; Relay files them as transaction items.
    const tx = { event_id: eid(7), type: 'transaction', transaction: '/checkout', spans: [] }
    const store = (body: unknown) =>
      app.inject({
        method: 'POST',
        url: `/api/${p.id}/store/`,
        headers: { 'x-sentry-auth': sentryAuth(p.key), 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      })
    const res = await store(tx)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ id: eid(7) })
    // An error event naming a transaction is still an error event.
    const err = await store({ event_id: eid(8), transaction: '/checkout', message: 'kept' })
    expect(err.json()).toEqual({ id: eid(8) })
    expect(await storedEvents(app, p.id)).toBe(1)
    expect(await outcomeMap(app, p.id)).toEqual({
      'accepted/error': 1,
      'unsupported:transaction/transaction': 1,
    })
  })

  it('cost no quota', async () => {
    await setQuota(app, p.id, { events: 1, window_seconds: 3600 })
    const env = envelopeOf([
      ['transaction', { type: 'transaction' }],
      ['log', { items: [] }],
      ['event', { event_id: eid(1), message: 'kept' }],
    ])
    expect((await postEnvelope(app, p.id, p.key, env)).statusCode).toBe(200)
  })
})

describe('rejected requests', () => {
  it('count each item of a malformed envelope with the reason and the key', async () => {
    const env = envelopeOf([
      ['event', '{"event_id": "broken'],
      ['client_report', { discarded_events: [] }],
      ['transaction', {}],
    ])
    const res = await postEnvelope(app, p.id, p.key, env)
    expect(res.statusCode).toBe(400)
    const [key] = await app.services.store.listKeys(p.id)
    expect(await outcomeMap(app, p.id, { key_id: String(key?.id) })).toEqual({
      'rejected:invalid_json/error': 1,
      'rejected:invalid_json/internal': 1,
      'rejected:invalid_json/transaction': 1,
    })
    expect(await storedEvents(app, p.id)).toBe(0)
  })

  it('attribute bad keys to the project in the path, with key 0', async () => {
    const unknown = await app.inject({
      method: 'POST',
      url: `/api/${p.id}/envelope/`,
      headers: { 'x-sentry-auth': sentryAuth('f'.repeat(32)) },
      payload: eventsEnvelope(1, 1),
    })
    expect(unknown.statusCode).toBe(403)
    const malformed = await app.inject({
      method: 'POST',
      url: `/api/${p.id}/envelope/?sentry_key=not-a-key`,
      payload: eventsEnvelope(2, 1),
    })
    expect(malformed.statusCode).toBe(401)
    const missing = await app.inject({
      method: 'POST',
      url: `/api/${p.id}/envelope/`,
      payload: eventsEnvelope(3, 1),
    })
    expect(missing.statusCode).toBe(401)
    const k = await componentKey('worker')
    await app.services.store.revokeKey(p.id, k.id)
    app.services.keys.invalidate()
    const revoked = await postEnvelope(app, p.id, k.key, eventsEnvelope(4, 1))
    expect(revoked.statusCode).toBe(403)
    // The body of a request without a valid key is never read: one item, category `default`.
    expect(await outcomeMap(app, p.id, { key_id: '0' })).toEqual({
      'rejected:auth_invalid/default': 1,
      'rejected:auth_missing/default': 1,
      'rejected:revoked_key/default': 1,
      'rejected:unknown_key/default': 1,
    })
  })

  it('count a key of another project as wrong_project on the project in the path', async () => {
    const q = await createProject(app, 'other')
    const res = await postEnvelope(app, p.id, q.key, eventsEnvelope(1, 1))
    expect(res.statusCode).toBe(403)
    expect(await outcomeMap(app, p.id)).toEqual({ 'rejected:wrong_project/default': 1 })
    expect(await outcomeMap(app, q.id)).toEqual({})
  })

  it('count oversized items and bodies as too_large', async () => {
    const big = envelopeOf([['event', { event_id: eid(1), message: 'x'.repeat(5000) }]])
    expect((await postEnvelope(app, p.id, p.key, big)).statusCode).toBe(413)
    const huge = await app.inject({
      method: 'POST',
      url: `/api/${p.id}/envelope/?sentry_key=${p.key}`,
      payload: Buffer.alloc(70_000, 0x61),
    })
    expect(huge.statusCode).toBe(413)
    const [key] = await app.services.store.listKeys(p.id)
    expect(await outcomeMap(app, p.id, { key_id: String(key?.id) })).toEqual({
      'rejected:too_large/error': 1,
      'rejected:too_large/default': 1,
    })
  })

  it('count undecodable bodies and broken envelopes', async () => {
    const bad = await app.inject({
      method: 'POST',
      url: `/api/${p.id}/envelope/?sentry_key=${p.key}`,
      headers: { 'content-encoding': 'gzip' },
      payload: Buffer.from('not gzip at all'),
    })
    expect(bad.statusCode).toBe(400)
    const broken = await app.inject({
      method: 'POST',
      url: `/api/${p.id}/envelope/?sentry_key=${p.key}`,
      payload: '{}\n{"type":"event","length":999}\n{}',
    })
    expect(broken.statusCode).toBe(400)
    const ok = await app.inject({
      method: 'POST',
      url: `/api/${p.id}/envelope/?sentry_key=${p.key}`,
      headers: { 'content-encoding': 'gzip' },
      payload: gzipSync(eventsEnvelope(1, 1)),
    })
    expect(ok.statusCode).toBe(200)
    expect(await outcomeMap(app, p.id)).toEqual({
      'accepted/error': 1,
      'rejected:invalid_compression/default': 1,
      'rejected:invalid_envelope/default': 1,
    })
  })

  it('record nothing for a project that does not exist', async () => {
    const res = await postEnvelope(app, 4242, p.key, eventsEnvelope(1, 1))
    expect(res.statusCode).toBe(403)
    const rows = await app.services.store.outcomeTotalsBy(4242, { since: 0, until: T0 + HOUR })
    expect(rows).toEqual([])
    expect(await outcomeMap(app, p.id)).toEqual({})
  })

  it('do not count an over-quota answer twice', async () => {
    await setQuota(app, p.id, { events: 0, window_seconds: 60 })
    expect((await postEnvelope(app, p.id, p.key, eventsEnvelope(1, 2))).statusCode).toBe(429)
    expect(await outcomeMap(app, p.id)).toEqual({ 'over_quota/error': 2 })
  })
})

describe('GET /api/0/projects/{id}/outcomes/', () => {
  it('sums counters over a range of hours, with labels and descriptions', async () => {
    await postEnvelope(app, p.id, p.key, eventsEnvelope(1, 2))
    vi.setSystemTime(T0 + 2 * HOUR + 60_000)
    await postEnvelope(app, p.id, p.key, eventsEnvelope(3, 1))
    await postEnvelope(app, p.id, p.key, eventsEnvelope(3, 1))

    const range = async (since: number, until: number) =>
      outcomeMap(app, p.id, { since: new Date(since).toISOString(), until: String(until / 1000) })
    expect(await range(T0, T0 + 3 * HOUR)).toEqual({ 'accepted/error': 3, 'duplicate/error': 1 })
    expect(await range(T0, T0 + HOUR)).toEqual({ 'accepted/error': 2 })
    expect(await range(T0 + HOUR, T0 + 2 * HOUR)).toEqual({})
    // Partial hours widen to the hours they touch.
    expect(await range(T0 + 2 * HOUR + 30 * 60_000, T0 + 2 * HOUR + 40 * 60_000)).toEqual({
      'accepted/error': 1,
      'duplicate/error': 1,
    })

    const rows = await outcomeTotals(app, p.id)
    expect(rows).toContainEqual({
      outcome: 'duplicate',
      reason: '',
      category: 'error',
      quantity: 1,
      label: 'duplicate',
      description: expect.stringMatching(/already stored/),
    })
    // Default range: the last 24 hours.
    const res = await app.inject({ url: `/api/0/projects/${p.id}/outcomes/`, headers: ADMIN })
    expect(res.json()).toMatchObject({
      since: new Date(T0 + 3 * HOUR - 24 * HOUR).toISOString(),
      until: new Date(T0 + 3 * HOUR).toISOString(),
    })
  })

  it('filters by component and by key', async () => {
    const worker = await componentKey('worker')
    await postEnvelope(app, p.id, p.key, eventsEnvelope(1, 2))
    await postEnvelope(app, p.id, worker.key, eventsEnvelope(10, 3))
    expect(await outcomeMap(app, p.id)).toEqual({ 'accepted/error': 5 })
    expect(await outcomeMap(app, p.id, { component: 'worker' })).toEqual({ 'accepted/error': 3 })
    expect(await outcomeMap(app, p.id, { key_id: String(worker.id) })).toEqual({
      'accepted/error': 3,
    })
    expect(await outcomeMap(app, p.id, { component: 'cli' })).toEqual({})
    expect(await outcomeMap(app, p.id, { category: 'transaction' })).toEqual({})
  })

  it('rejects bad queries with 400, unknown projects with 404, no token with 401', async () => {
    const get = (url: string, headers: Record<string, string> = ADMIN) =>
      app.inject({ url, headers })
    expect((await get(`/api/0/projects/${p.id}/outcomes/?since=yesterday`)).statusCode).toBe(400)
    expect(
      (
        await get(
          `/api/0/projects/${p.id}/outcomes/?since=2026-01-05T12:00:00Z&until=2026-01-05T10:00:00Z`,
        )
      ).statusCode,
    ).toBe(400)
    expect((await get(`/api/0/projects/${p.id}/outcomes/?key_id=-1`)).statusCode).toBe(400)
    expect((await get('/api/0/projects/999/outcomes/')).statusCode).toBe(404)
    expect((await get(`/api/0/projects/${p.id}/outcomes/`, {})).statusCode).toBe(401)
    const bad = await get(`/api/0/projects/${p.id}/outcomes/series/?since=0&until=${T0 / 1000}`)
    expect(bad.statusCode).toBe(400)
    expect(bad.json<{ detail: string }>().detail).toMatch(/range too long/)
  })
})

describe('GET /api/0/projects/{id}/outcomes/series/', () => {
  it('gives dense hourly buckets per outcome for a chart', async () => {
    await postEnvelope(app, p.id, p.key, eventsEnvelope(1, 2))
    vi.setSystemTime(T0 + 2 * HOUR + 60_000)
    await setQuota(app, p.id, { events: 1, window_seconds: 60 })
    await postEnvelope(app, p.id, p.key, eventsEnvelope(3, 2))
    const res = await app.inject({
      url: `/api/0/projects/${p.id}/outcomes/series/?since=${T0 / 1000 - 3600}&until=${(T0 + 3 * HOUR) / 1000}`,
      headers: ADMIN,
    })
    expect(res.statusCode).toBe(200)
    const body = res.json<{
      interval: string
      buckets: { start: string; outcomes: Record<string, number> }[]
    }>()
    expect(body.interval).toBe('1h')
    const zero = {
      accepted: 0,
      duplicate: 0,
      rejected: 0,
      over_quota: 0,
      filtered: 0,
      unsupported: 0,
      client_discard: 0,
    }
    expect(body.buckets).toEqual([
      { start: new Date(T0 - HOUR).toISOString(), outcomes: zero },
      { start: new Date(T0).toISOString(), outcomes: { ...zero, accepted: 2 } },
      { start: new Date(T0 + HOUR).toISOString(), outcomes: zero },
      {
        start: new Date(T0 + 2 * HOUR).toISOString(),
        outcomes: { ...zero, accepted: 1, over_quota: 1 },
      },
    ])
  })
})
