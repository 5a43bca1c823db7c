import { afterEach, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../test/support/postgres-database.ts'
import { JOB_LEASE_MS, LeasedJob, type LeaseStore } from './leased-job.ts'
import { openPostgresStore } from './postgres/index.ts'
import { openSqliteStore } from './sqlite/index.ts'
import type { Store } from './store.ts'

const HOUR = 3_600_000
let db: TestDatabase | undefined
const stores: Store[] = []
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()))
  await db?.drop()
  db = undefined
})

/** Two nodes' lease stores: two pools on one PostgreSQL, or one SQLite store (one process). */
const backends: [string, () => Promise<[LeaseStore, LeaseStore]>][] = [
  [
    'sqlite',
    async () => {
      const s = await openSqliteStore(':memory:')
      stores.push(s)
      return [s, s]
    },
  ],
  [
    'postgres',
    async () => {
      db = await createTestDatabase()
      const a = await openPostgresStore(db.url, { poolSize: 2 })
      const b = await openPostgresStore(db.url, { poolSize: 2 })
      stores.push(a, b)
      return [a, b]
    },
  ],
]

describe.each(backends)('a leased periodic job: %s', (_, open) => {
  it('runs on one node per interval; another takes over within a minute of the holder dying', async () => {
    const [sa, sb] = await open()
    let now = Date.UTC(2026, 0, 1)
    const runs: string[] = []
    const job = (store: LeaseStore, holder: string) =>
      new LeasedJob(store, {
        name: 'sweep',
        intervalMs: HOUR,
        holder,
        now: () => now,
        run: async () => runs.push(holder),
        onError: (err) => {
          throw err
        },
      })
    const a = job(sa, 'a')
    const b = job(sb, 'b')
    expect(await Promise.all([a.runOnce(), b.runOnce()])).toContain(true)
    expect(runs).toHaveLength(1)
    const holder = runs[0] === 'a' ? a : b
    const other = holder === a ? b : a
    // Polls within the interval run nothing, whoever polls.
    now += 15_000
    expect([await holder.runOnce(), await other.runOnce()]).toEqual([false, false])
    // The interval passed: one node runs once more (the holder's next poll renews its lease).
    now += HOUR
    expect(await holder.runOnce()).toBe(true)
    expect(await other.runOnce()).toBe(false)
    expect(runs).toHaveLength(2)
    // The holder dies (polls no more). Its lease lapses within JOB_LEASE_MS; the other's next
    // poll takes it, and runs when the interval since the last run (by anyone) has passed.
    now += JOB_LEASE_MS + 1
    expect(JOB_LEASE_MS + 15_000).toBeLessThanOrEqual(60_000)
    expect(await other.runOnce()).toBe(false)
    now += HOUR
    expect(await other.runOnce()).toBe(true)
    expect(runs).toEqual([runs[0], runs[0], other.holder])
  })
})
