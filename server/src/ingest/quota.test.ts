import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openSqliteStore } from '../store/sqlite/index.ts'
import type { EventToWrite, Store, WriteUnitResult } from '../store/types.ts'
import { QuotaGate, rateLimitHeaders } from './quota.ts'

let store: Store
let projectId: number
let resolved: { project: { id: number }; key: { id: number } }
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

/** Commits one request's events as its own unit; resolves with what the store answered. */
async function write(...ids: number[]): Promise<WriteUnitResult> {
  const [r] = await store.write([{ events: ids.map(event), outcomes: [] }])
  if (r === undefined) throw new Error('no result')
  return r
}

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

describe('the quota charged in the ingest transaction', () => {
  it('charges nothing and reports nothing when the project has no quota', async () => {
    const r = await write(1, 2, 3)
    expect(r.quota).toBeUndefined()
    expect(r.events).toHaveLength(3)
  })

  it('stores what fits, refuses the rest, counts over_quota and ends the limit with the window', async () => {
    await store.setQuota(projectId, { events: 3, windowSeconds: 60 })
    expect((await write(1)).quota, 'the window starts with this event').toEqual({
      refused: 0,
      windowEnd: T0 + 60_000,
      limited: false,
    })
    now = T0 + 20_000
    const r = await write(2, 3, 4, 5)
    expect(r.quota).toEqual({ refused: 2, windowEnd: T0 + 60_000, limited: true })
    expect(r.events.map((e) => e.eventId)).toEqual([hex(2), hex(3)])
    expect(await store.existingEventIds(projectId, [hex(4), hex(5)])).toEqual(new Set())
    const gate = new QuotaGate({ now: () => now })
    gate.record(projectId, r.quota)
    expect(gate.activeLimit(projectId)).toEqual(rateLimitHeaders(40, false))
    now = T0 + 60_000
    expect(gate.activeLimit(projectId), 'the limit ends with its window').toBeUndefined()
    expect((await write(6)).quota).toEqual({
      refused: 0,
      windowEnd: T0 + 120_000,
      limited: false,
    })
    const totals = await store.outcomeTotals(projectId, 0, Number.MAX_SAFE_INTEGER)
    expect(totals).toContainEqual({
      outcome: 'over_quota',
      reason: 'quota_exceeded',
      category: 'error',
      quantity: 2,
    })
  })

  it('lets stored ids through for free when over the quota, and refuses a copy of a refused event', async () => {
    await store.setQuota(projectId, { events: 2, windowSeconds: 60 })
    await write(1, 2)
    const r = await write(1, 2, 3, 3)
    expect(r.quota?.refused).toBe(2)
    expect(r.events.map((e) => [e.eventId, e.duplicate])).toEqual([
      [hex(1), true],
      [hex(2), true],
    ])
  })

  it('never stores more than the quota from the units of one group, whatever their sizes', async () => {
    await store.setQuota(projectId, { events: 5, windowSeconds: 60 })
    const units = Array.from({ length: 4 }, (_, i) => ({
      events: [event(i * 3), event(i * 3 + 1), event(i * 3 + 2)],
      outcomes: [],
    }))
    const results = await store.write(units)
    expect(results.map((r) => r.quota?.refused)).toEqual([0, 1, 3, 3])
    expect(results.flatMap((r) => r.events)).toHaveLength(5)
  })

  it("opens a new window when the quota's length changes", async () => {
    await store.setQuota(projectId, { events: 1, windowSeconds: 60 })
    await write(1)
    expect((await write(2)).quota?.refused).toBe(1)
    await store.setQuota(projectId, { events: 1, windowSeconds: 30 })
    expect((await write(3)).quota).toEqual({ refused: 0, windowEnd: T0 + 30_000, limited: false })
  })
})
