import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { row } from '../../../test/store-contract/contract.ts'
import { createTestDatabase, type TestDatabase } from '../../../test/support/postgres-database.ts'
import { chargeQuota, type QuotaWindow } from '../quota-rules.ts'
import type { Store } from '../store.ts'
import { openPool } from './db.ts'
import { openPostgresStore } from './index.ts'
import { reserveQuota } from './quota-reservation.ts'

let db: TestDatabase | undefined
const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
  await db?.drop()
  db = undefined
})

async function setUp(quota: number) {
  db = await createTestDatabase()
  const store: Store = await openPostgresStore(db.url, { poolSize: 4 })
  closers.push(() => store.close())
  const { project, key } = await store.createProject('P', 'p', 'a'.repeat(32))
  await store.setQuota(project.id, { events: quota, windowSeconds: 3600 })
  const other = new pg.Client(db.url)
  await other.connect()
  closers.push(() => other.end())
  const used = async () =>
    (
      await other.query<{ used: string }>('SELECT used FROM quota_windows WHERE project_id = $1', [
        project.id,
      ])
    ).rows[0]?.used
  return { store, project, key, other, used: async () => Number(await used()) }
}

/** Resolves once `check` holds, polling; the test's timeout ends a wait that never does. */
async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 20))
}

describe('the quota reservation on PostgreSQL', () => {
  it('lets a group commit of a quota’d project finish while another one is still open', async () => {
    const { store, project, key, other, used } = await setUp(10)
    await store.write([{ events: [row(project.id, key.id, 'a')], outcomes: [] }])
    // Claim one of the next group's event ids in a transaction left open: the group's claim of
    // its ids waits for it, so the group stops inside its ingest transaction, after its
    // reservation.
    const held = [row(project.id, key.id, 'a'), row(project.id, key.id, 'a')]
    await other.query('BEGIN')
    await other.query('INSERT INTO event_ids (project_id, event_id, received) VALUES ($1, $2, 0)', [
      project.id,
      held[0]?.eventId,
    ])
    let firstDone = false
    const first = store.write([{ events: held, outcomes: [] }]).finally(() => {
      firstDone = true
    })
    await until(async () => (await used()) === 3)
    // With the quota row locked for the whole transaction, this group would wait for the
    // first one; now it commits while the first is still open.
    const [second] = await store.write([{ events: [row(project.id, key.id, 'b')], outcomes: [] }])
    expect(second?.events.map((e) => e.duplicate)).toEqual([false])
    expect(second?.quota?.refused).toBe(0)
    expect(firstDone).toBe(false)
    await other.query('ROLLBACK')
    const [written] = await first
    expect(written?.events.map((e) => e.duplicate)).toEqual([false, false])
    expect(await used()).toBe(4)
  })

  it('gives a failed commit’s reservation back, so the quota is not lost', async () => {
    const { store, project, key, used } = await setUp(3)
    // A timestamp PostgreSQL's BIGINT refuses fails the whole transaction after the reservation.
    const bad = [0, 1, 2].map(() => row(project.id, key.id, 'x', { timestamp: Number.NaN }))
    await expect(store.write([{ events: bad, outcomes: [] }])).rejects.toThrow(/bigint|NaN/i)
    expect(await used()).toBe(0)
    const [ok] = await store.write([
      { events: [0, 1, 2, 3].map(() => row(project.id, key.id, 'x')), outcomes: [] },
    ])
    expect(ok?.quota?.refused).toBe(1)
    expect(ok?.events.filter((e) => !e.duplicate)).toHaveLength(3)
    expect(await used()).toBe(3)
  })

  it('grants what chargeQuota grants, window by window', async () => {
    const { store, project } = await setUp(5)
    const pool = openPool(db?.url ?? '', 1)
    closers.push(() => pool.end())
    const steps: [now: number, n: number, seconds?: number][] = [
      [1000, 3],
      [2000, 4],
      [3000, 1],
      [3_601_000, 2],
      [3_602_000, 9],
      [3_603_000, 2, 60],
      [3_604_000, 4, 60],
    ]
    let window: QuotaWindow | undefined
    let seconds = 3600
    for (const [now, n, len] of steps) {
      if (len !== undefined && len !== seconds) {
        seconds = len
        await store.setQuota(project.id, { events: 5, windowSeconds: seconds })
      }
      const expected = chargeQuota({ events: 5, windowSeconds: seconds }, window, now, n)
      window = expected.window
      const got = await reserveQuota(pool, project.id, now, n)
      expect({ now, granted: got?.granted, start: got?.start, seconds: got?.seconds }).toEqual({
        now,
        granted: expected.granted,
        start: expected.window.start,
        seconds: expected.window.seconds,
      })
    }
  })
})
