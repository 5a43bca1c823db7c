import type { FastifyInstance } from 'fastify'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
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
import { eventsEnvelope, outcomeMap, setQuota, storedEvents } from './support/outcome-helpers.ts'

const T0 = Date.UTC(2026, 0, 5, 10, 0, 0)
const LIMIT = /^(\d+):error:project:quota_exceeded$/

let app: FastifyInstance
let p: TestProject

freezeDate(T0)

beforeEach(async () => {
  app = await testApp()
  p = await createProject(app)
})

afterEach(async () => {
  await app.close()
})

describe('quota settings', () => {
  it('are set, shown and removed through the project API', async () => {
    const get = async () =>
      (await app.inject({ url: `/api/0/projects/${p.id}/`, headers: ADMIN })).json<{
        quota: unknown
      }>().quota
    expect(await get()).toBeNull()
    const put = await setQuota(app, p.id, { events: 30, window_seconds: 60 })
    expect(put.quota).toEqual({ events: 30, window_seconds: 60 })
    expect(await get()).toEqual({ events: 30, window_seconds: 60 })
    await setQuota(app, p.id, null)
    expect(await get()).toBeNull()
  })

  it('reject invalid input with a 400 detail, unknown projects with 404, anonymous with 401', async () => {
    for (const quota of [
      { events: -1, window_seconds: 60 },
      { events: 1, window_seconds: 0 },
      { events: 1.5, window_seconds: 60 },
      { events: 1 },
      { events: 1, window_seconds: 60, burst: 3 },
      'lots',
    ]) {
      const res = await app.inject({
        method: 'PUT',
        url: `/api/0/projects/${p.id}/`,
        headers: ADMIN,
        payload: { quota },
      })
      expect(res.statusCode, JSON.stringify(quota)).toBe(400)
      expect(res.json<{ detail: string }>().detail).toMatch(/invalid project update/)
    }
    const other = await app.inject({
      method: 'PUT',
      url: '/api/0/projects/999/',
      headers: ADMIN,
      payload: { quota: null },
    })
    expect(other.statusCode).toBe(404)
    const anon = await app.inject({
      method: 'PUT',
      url: `/api/0/projects/${p.id}/`,
      payload: { quota: null },
    })
    expect(anon.statusCode).toBe(401)
  })
})

describe('OpenAPI', () => {
  it('documents the quota setting and the outcome endpoints', async () => {
    const res = await app.inject({ url: '/api/0/openapi.json' })
    const paths = res.json<{ paths: Record<string, Record<string, unknown>> }>().paths
    expect(Object.keys(paths['/api/0/projects/{projectId}/'] ?? {})).toContain('put')
    expect(paths['/api/0/projects/{projectId}/outcomes/']).toHaveProperty('get')
    expect(paths['/api/0/projects/{projectId}/outcomes/series/']).toHaveProperty('get')
  })
})

describe('event quota', () => {
  it('is charged per event item, not per request, and answers 429 with rate-limit headers', async () => {
    await setQuota(app, p.id, { events: 5, window_seconds: 60 })
    // The window starts with the first event.
    expect((await postEnvelope(app, p.id, p.key, eventsEnvelope(1, 3))).statusCode).toBe(200)
    vi.setSystemTime(T0 + 15_500)
    const res = await postEnvelope(app, p.id, p.key, eventsEnvelope(4, 3))
    expect(res.statusCode).toBe(429)
    expect(res.json<{ detail: string }>().detail).toMatch(/quota/)
    // 44.5 s left in the window, announced as whole seconds rounded up.
    expect(res.headers['retry-after']).toBe('45')
    expect(res.headers['x-sentry-rate-limits']).toBe('45:error:project:quota_exceeded')
    expect(res.headers['x-ingest-rate-limits']).toBe('45:error:project:quota_exceeded')
    expect(await storedEvents(app, p.id)).toBe(5)
    expect(await outcomeMap(app, p.id)).toEqual({
      'accepted/error': 5,
      'over_quota/error': 1,
    })
  })

  it('keeps the accepted part of an envelope and does not store or count a resend twice', async () => {
    await setQuota(app, p.id, { events: 30, window_seconds: 60 })
    const fifty = eventsEnvelope(1, 50)
    const first = await postEnvelope(app, p.id, p.key, fifty)
    expect(first.statusCode).toBe(429)
    expect(await storedEvents(app, p.id)).toBe(30)
    for (let i = 1; i <= 30; i++) {
      const ev = await app.inject({
        url: `/api/0/projects/${p.id}/events/${eid(i)}/`,
        headers: ADMIN,
      })
      expect(ev.statusCode, `event ${i} (within the quota) is stored`).toBe(200)
    }
    const refused = await app.inject({
      url: `/api/0/projects/${p.id}/events/${eid(31)}/`,
      headers: ADMIN,
    })
    expect(refused.statusCode).toBe(404)

    // The SDK resends the whole envelope after the announced time: the window has reset.
    const retryAfter = Number(first.headers['retry-after'])
    vi.setSystemTime(T0 + retryAfter * 1000)
    const again = await postEnvelope(app, p.id, p.key, fifty)
    expect(again.statusCode).toBe(200)
    expect(again.headers['x-sentry-rate-limits']).toBeUndefined()
    expect(await storedEvents(app, p.id)).toBe(50)
    const outcomes = await outcomeMap(app, p.id)
    expect(outcomes).toEqual({
      'accepted/error': 50,
      'duplicate/error': 30,
      'over_quota/error': 20,
    })
    const items = Object.values(outcomes).reduce((a, b) => a + b, 0)
    expect(items, 'one outcome per item sent').toBe(100)

    // The resend cost only the 20 new events: 10 remain in this window.
    expect((await postEnvelope(app, p.id, p.key, eventsEnvelope(100, 10))).statusCode).toBe(200)
    expect((await postEnvelope(app, p.id, p.key, eventsEnvelope(200, 1))).statusCode).toBe(429)
  })

  it('refuses again a resend within the same window, storing nothing new', async () => {
    await setQuota(app, p.id, { events: 30, window_seconds: 60 })
    const fifty = eventsEnvelope(1, 50)
    expect((await postEnvelope(app, p.id, p.key, fifty)).statusCode).toBe(429)
    expect((await postEnvelope(app, p.id, p.key, fifty)).statusCode).toBe(429)
    expect(await storedEvents(app, p.id)).toBe(30)
    expect(await outcomeMap(app, p.id)).toEqual({
      'accepted/error': 30,
      'duplicate/error': 30,
      'over_quota/error': 40,
    })
  })

  it('charges nothing for duplicates', async () => {
    await setQuota(app, p.id, { events: 2, window_seconds: 60 })
    for (let i = 0; i < 5; i++) {
      const res = await postEnvelope(app, p.id, p.key, eventsEnvelope(1, 1))
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ id: eid(1) })
    }
    expect((await postEnvelope(app, p.id, p.key, eventsEnvelope(2, 1))).statusCode).toBe(200)
    expect((await postEnvelope(app, p.id, p.key, eventsEnvelope(3, 1))).statusCode).toBe(429)
    // A duplicate of a stored event still answers 200 while the quota is spent.
    const dup = await postEnvelope(app, p.id, p.key, eventsEnvelope(2, 1))
    expect(dup.statusCode).toBe(200)
    expect(await outcomeMap(app, p.id)).toEqual({
      'accepted/error': 2,
      'duplicate/error': 5,
      'over_quota/error': 1,
    })
  })

  it('lets items that cost no quota through while it is spent, announcing the limit on 200', async () => {
    await setQuota(app, p.id, { events: 1, window_seconds: 60 })
    expect((await postEnvelope(app, p.id, p.key, eventsEnvelope(1, 1))).statusCode).toBe(200)
    vi.setSystemTime(T0 + 10_000)
    const mixed = envelopeOf([
      ['event', { event_id: eid(2), message: 'over' }],
      [
        'client_report',
        { discarded_events: [{ reason: 'queue_overflow', category: 'error', quantity: 2 }] },
      ],
      ['transaction', { type: 'transaction', spans: [] }],
    ])
    const limited = await postEnvelope(app, p.id, p.key, mixed)
    expect(limited.statusCode).toBe(429)
    vi.setSystemTime(T0 + 20_000)
    const report = envelopeOf([
      [
        'client_report',
        { discarded_events: [{ reason: 'ratelimit_backoff', category: 'error', quantity: 4 }] },
      ],
    ])
    const ok = await postEnvelope(app, p.id, p.key, report)
    expect(ok.statusCode).toBe(200)
    expect(ok.headers['x-sentry-rate-limits']).toBe('40:error:project:quota_exceeded')
    expect(ok.headers['x-ingest-rate-limits']).toBe('40:error:project:quota_exceeded')
    expect(
      ok.headers['retry-after'],
      'Retry-After only on 429 (JS/Rust honour it on any status)',
    ).toBeUndefined()
    expect(await outcomeMap(app, p.id)).toEqual({
      'accepted/error': 1,
      'accepted/internal': 2,
      'over_quota/error': 1,
      'client_discard:queue_overflow/error': 2,
      'client_discard:ratelimit_backoff/error': 4,
      'unsupported:transaction/transaction': 1,
    })
    // A new window: nothing announced any more.
    vi.setSystemTime(T0 + 60_000)
    const later = await postEnvelope(app, p.id, p.key, report)
    expect(later.headers['x-sentry-rate-limits']).toBeUndefined()
  })

  it('does not announce a limit before anything was refused', async () => {
    await setQuota(app, p.id, { events: 2, window_seconds: 60 })
    const res = await postEnvelope(app, p.id, p.key, eventsEnvelope(1, 2))
    expect(res.statusCode).toBe(200)
    expect(res.headers['x-sentry-rate-limits']).toBeUndefined()
  })

  it('applies to /store/ as well', async () => {
    await setQuota(app, p.id, { events: 1, window_seconds: 3600 })
    const store = (n: number) =>
      app.inject({
        method: 'POST',
        url: `/api/${p.id}/store/`,
        headers: { 'x-sentry-auth': sentryAuth(p.key), 'content-type': 'application/json' },
        payload: { event_id: eid(n), message: 'legacy' },
      })
    expect((await store(1)).statusCode).toBe(200)
    const res = await store(2)
    expect(res.statusCode).toBe(429)
    expect(res.headers['x-sentry-rate-limits']).toMatch(LIMIT)
    expect((await store(1)).statusCode, 'a duplicate is answered like the original').toBe(200)
  })

  it('is lifted at once when removed or raised, and quota 0 refuses every event', async () => {
    await setQuota(app, p.id, { events: 0, window_seconds: 60 })
    expect((await postEnvelope(app, p.id, p.key, eventsEnvelope(1, 1))).statusCode).toBe(429)
    await setQuota(app, p.id, { events: 1, window_seconds: 60 })
    expect((await postEnvelope(app, p.id, p.key, eventsEnvelope(1, 1))).statusCode).toBe(200)
    expect((await postEnvelope(app, p.id, p.key, eventsEnvelope(2, 1))).statusCode).toBe(429)
    await setQuota(app, p.id, null)
    const res = await postEnvelope(app, p.id, p.key, eventsEnvelope(2, 20))
    expect(res.statusCode).toBe(200)
    expect(res.headers['x-sentry-rate-limits']).toBeUndefined()
  })

  it('belongs to one project: another project is not limited', async () => {
    const q = await createProject(app, 'other')
    await setQuota(app, p.id, { events: 1, window_seconds: 60 })
    expect((await postEnvelope(app, p.id, p.key, eventsEnvelope(1, 2))).statusCode).toBe(429)
    const res = await postEnvelope(app, q.id, q.key, eventsEnvelope(1, 5))
    expect(res.statusCode).toBe(200)
    expect(res.headers['x-sentry-rate-limits']).toBeUndefined()
  })
})

describe('deduplication by (project, event_id)', () => {
  it('answers a resend 200 with the same id on every endpoint and changes no count', async () => {
    const first = await postEnvelope(app, p.id, p.key, eventsEnvelope(7, 1))
    expect(first.json()).toEqual({ id: eid(7) })
    const viaStore = await app.inject({
      method: 'POST',
      url: `/api/${p.id}/store/`,
      headers: { 'x-sentry-auth': sentryAuth(p.key) },
      payload: JSON.stringify({ event_id: eid(7), message: 'quota test', level: 'error' }),
    })
    expect(viaStore.statusCode).toBe(200)
    expect(viaStore.json()).toEqual({ id: eid(7) })
    // Days later: still the same event.
    vi.setSystemTime(T0 + 10 * 86_400_000)
    const again = await postEnvelope(app, p.id, p.key, eventsEnvelope(7, 1))
    expect(again.statusCode).toBe(200)
    expect(again.json()).toEqual({ id: eid(7) })
    expect(await storedEvents(app, p.id)).toBe(1)
    expect(await outcomeMap(app, p.id)).toEqual({ 'accepted/error': 1, 'duplicate/error': 2 })
  })

  it('is per project: the same id in another project is a new event', async () => {
    const q = await createProject(app, 'other')
    await postEnvelope(app, p.id, p.key, eventsEnvelope(7, 1))
    await postEnvelope(app, q.id, q.key, eventsEnvelope(7, 1))
    expect(await storedEvents(app, p.id)).toBe(1)
    expect(await storedEvents(app, q.id)).toBe(1)
  })
})
