import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openSqliteStore } from '../store/sqlite/index.ts'
import type { EventToWrite, Store } from '../store/types.ts'
import { IngestContext } from './context.ts'
import { QuotaGate, rateLimitHeaders } from './quota.ts'

let store: Store
let projectId: number
let resolved: ConstructorParameters<typeof IngestContext>[0]
let now: number
const T0 = 1_800_000_000_000 // a multiple of 60 s

beforeEach(async () => {
  store = await openSqliteStore(':memory:')
  const { project, key } = await store.createProject('p', 'p', 'a'.repeat(32))
  projectId = project.id
  resolved = { project, key }
  now = T0
})

afterEach(async () => {
  await store.close()
})

const hex = (n: number) => n.toString(16).padStart(32, '0')

function event(n: number): EventToWrite {
  return {
    projectId,
    keyId: resolved.key.id,
    eventId: hex(n),
    timestamp: now,
    received: now,
    level: 'error',
    title: 't',
    culprit: '',
    type: null,
    value: null,
    release: null,
    environment: null,
    component: null,
    hash: 'h',
    groupingVersion: 'v1',
    payload: '{}',
  }
}

function request(...ids: number[]): IngestContext {
  const ctx = new IngestContext(resolved, now, {})
  for (const id of ids) ctx.addEvent(event(id))
  return ctx
}

const gate = () => new QuotaGate(store, { now: () => now })

describe('rateLimitHeaders', () => {
  it('has the three-field form every SDK parser accepts, Retry-After only for 429', () => {
    expect(rateLimitHeaders(42, true)).toEqual({
      'retry-after': '42',
      'x-sentry-rate-limits': '42:error:project:quota_exceeded',
      'x-ingest-rate-limits': '42:error:project:quota_exceeded',
    })
    expect(rateLimitHeaders(42, false)).not.toHaveProperty('retry-after')
  })
})

describe('QuotaGate', () => {
  it('admits everything and reads nothing per request when there is no quota', async () => {
    const g = gate()
    let reads = 0
    const getQuota = store.getQuota.bind(store)
    store.getQuota = async (id) => {
      reads++
      return getQuota(id)
    }
    for (let i = 0; i < 100; i++) {
      const t = await g.admit(request(i))
      expect(t.refused).toBe(0)
    }
    expect(reads, 'configuration cached between requests').toBe(1)
    now += 31_000
    await g.admit(request(1000))
    expect(reads, 're-read after the cache time').toBe(2)
  })

  it('trims the unit to the quota, counts over_quota and says how long to wait', async () => {
    await store.setQuota(projectId, { events: 3, windowSeconds: 60 })
    const g = gate()
    expect((await g.admit(request(1))).refused, 'the window starts with this event').toBe(0)
    now = T0 + 20_250
    const ctx = request(2, 3, 4, 5)
    const t = await g.admit(ctx)
    expect(ctx.unit.events.map((e) => e.eventId)).toEqual([hex(2), hex(3)])
    expect(t).toMatchObject({ refused: 2, retryAfter: 40, charged: [true, true] })
    expect(ctx.unit.outcomes).toMatchObject([
      { outcome: 'over_quota', reason: 'quota_exceeded', category: 'error', quantity: 2 },
    ])
    expect(g.activeLimit(projectId)).toEqual(rateLimitHeaders(40, false))
    now = T0 + 60_000
    expect(g.activeLimit(projectId), 'the limit ends with its window').toBeUndefined()
    const next = request(6, 7, 8)
    expect((await g.admit(next)).refused).toBe(0)
  })

  it('lets stored ids through for free when over the quota', async () => {
    await store.setQuota(projectId, { events: 2, windowSeconds: 60 })
    const g = gate()
    const first = request(1, 2, 3)
    const t1 = await g.admit(first)
    const r1 = await store.write([first.unit])
    g.settle(t1, r1[0]?.events ?? [])
    now += 60_000
    const resend = request(1, 2, 3, 3, 4)
    const t2 = await g.admit(resend)
    expect(resend.unit.events.map((e) => e.eventId)).toEqual([
      hex(1),
      hex(2),
      hex(3),
      hex(3),
      hex(4),
    ])
    expect(t2.charged).toEqual([false, false, true, false, true])
    expect(t2.refused).toBe(0)
  })

  it('refunds charges for events the store found to be duplicates, and for failed commits', async () => {
    await store.setQuota(projectId, { events: 2, windowSeconds: 60 })
    const g = gate()
    const a = request(1)
    const ta = await g.admit(a)
    g.settle(ta, (await store.write([a.unit]))[0]?.events ?? [])
    // Same id again (fast path: charged, then refunded after the store said duplicate).
    const again = request(1)
    const tb = await g.admit(again)
    expect(tb.charged).toEqual([true])
    g.settle(tb, (await store.write([again.unit]))[0]?.events ?? [])
    const lost = request(2)
    g.cancel(await g.admit(lost))
    const last = request(3)
    expect((await g.admit(last)).refused, 'one event used, one left').toBe(0)
    expect((await g.admit(request(4))).refused).toBe(1)
  })

  it('never admits more than the quota to concurrent requests', async () => {
    await store.setQuota(projectId, { events: 10, windowSeconds: 60 })
    const g = gate()
    const tickets = await Promise.all(
      Array.from({ length: 8 }, (_, i) => g.admit(request(i * 3, i * 3 + 1, i * 3 + 2))),
    )
    const admitted = tickets.reduce((n, t) => n + t.charged.filter(Boolean).length, 0)
    expect(admitted).toBe(10)
    expect(tickets.reduce((n, t) => n + t.refused, 0)).toBe(14)
  })

  it('takes a change made on this node at once and one made elsewhere after the cache time', async () => {
    const g = gate()
    expect((await g.admit(request(1, 2))).refused).toBe(0)
    await store.setQuota(projectId, { events: 1, windowSeconds: 60 })
    expect((await g.admit(request(3, 4))).refused, 'another node changed it: not seen yet').toBe(0)
    now += 30_000
    expect((await g.admit(request(5, 6))).refused).toBe(1)
    g.set(projectId, null)
    expect((await g.admit(request(7, 8))).refused).toBe(0)
  })
})
