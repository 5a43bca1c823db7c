import { afterEach, describe, expect, it } from 'vitest'
import { row } from '../../../test/store-contract/contract.ts'
import { createTestDatabase, type TestDatabase } from '../../../test/support/postgres-database.ts'
import { sweepRetention } from '../retention.ts'
import { openPostgresStore } from './index.ts'
import { PARTITION_DAYS_AHEAD } from './partitions.ts'

const DAY = 86_400_000
let db: TestDatabase | undefined
afterEach(async () => {
  await db?.drop()
  db = undefined
})

describe('events partitions on PostgreSQL', () => {
  it('creates daily partitions ahead and retention drops the ones wholly before the cutoff', async () => {
    db = await createTestDatabase()
    const store = await openPostgresStore(db.url, { poolSize: 2 })
    try {
      const partitionsOf = async () =>
        (
          await store.pool.query<{ name: string; n: number }>(
            `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
             WHERE i.inhparent = 'events'::regclass ORDER BY 1`,
          )
        ).rows.map((r) => r.name)
      const today = Math.floor(Date.now() / DAY) * DAY
      const todayName = `events_d${new Date(today).toISOString().slice(0, 10).replaceAll('-', '')}`
      const before = await partitionsOf()
      expect(before).toContain(todayName)
      expect(before.filter((n) => /^events_d\d{8}$/.test(n))).toHaveLength(PARTITION_DAYS_AHEAD + 1)

      const { project, key } = await store.createProject('P', 'p', 'b'.repeat(32))
      const events = [
        row(project.id, key.id, 'h', { received: today + 1000 }),
        row(project.id, key.id, 'h', { received: today + 2000 }),
        row(project.id, key.id, 'h', { received: today - 10 * DAY }),
      ]
      const [r] = await store.write([{ events, outcomes: [] }])
      const count = async (table: string) =>
        Number((await store.pool.query(`SELECT COUNT(*) AS n FROM ${table}`)).rows[0]?.n)
      expect(await count(todayName)).toBe(2)
      expect(await count('events_default')).toBe(1)

      // A cutoff after today's end: today's partition goes whole, the old row by delete.
      const removed = await store.pruneBefore(today + DAY, 500)
      expect(removed.events).toBe(3)
      expect(await partitionsOf()).not.toContain(todayName)
      expect(await count('events')).toBe(0)
      expect(await count('event_ids')).toBe(0)
      expect((await store.getIssue(r?.events[0]?.issueId ?? 0))?.timesSeen).toBe(3)
    } finally {
      await store.close()
    }
  })

  it('a sweep goes on until the idempotency keys of a dropped day are gone', async () => {
    db = await createTestDatabase()
    const store = await openPostgresStore(db.url, { poolSize: 2 })
    try {
      const today = Math.floor(Date.now() / DAY) * DAY
      const { project, key } = await store.createProject('P', 'p', 'c'.repeat(32))
      const events = Array.from({ length: 7 }, (_, i) =>
        row(project.id, key.id, 'h', { received: today + 1000 + i }),
      )
      await store.write([{ events, outcomes: [] }])
      // Batches of 2: the drop removes all 7 events at once, the keys take four batches.
      const removed = await sweepRetention(store, 1, today + 2 * DAY, { batch: 2, dutyCycle: 1 })
      expect(removed.events).toBe(7)
      const ids = await store.pool.query('SELECT COUNT(*) AS n FROM event_ids')
      expect(Number(ids.rows[0]?.n)).toBe(0)
    } finally {
      await store.close()
    }
  })
})
