import type pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../../test/support/postgres-database.ts'
import { first, openPool, transaction } from './db.ts'

let db: TestDatabase
let pool: pg.Pool

beforeAll(async () => {
  db = await createTestDatabase()
  pool = openPool(db.url, 2)
  await pool.query('CREATE TABLE t (id INT PRIMARY KEY, v TEXT)')
})

afterAll(async () => {
  await pool.end()
  await db.drop()
})

/** Counts the socket writes of every connection the pool hands out from now on. */
function countWrites(): { writes: number } {
  const seen = { writes: 0 }
  pool.on('acquire', (client) => {
    const stream = (client as unknown as { connection: { stream: Record<string, unknown> } })
      .connection.stream
    if (stream['__counted'] === true) return
    stream['__counted'] = true
    for (const name of ['_write', '_writev']) {
      const original = stream[name] as (...a: unknown[]) => unknown
      stream[name] = function (this: unknown, ...a: unknown[]) {
        seen.writes++
        return original.apply(this, a)
      }
    }
  })
  return seen
}

describe('a pipelined transaction', () => {
  it('sends what one turn issues in one write, and a read sees the writes issued before it', async () => {
    const seen = countWrites()
    await pool.query('TRUNCATE t')
    seen.writes = 0
    const n = await transaction(pool, async (c) => {
      c.track(c.query({ text: 'INSERT INTO t VALUES (1, $1)', values: ['a'] }))
      c.track(c.query({ text: 'INSERT INTO t VALUES (2, $1)', values: ['b'] }))
      const r = await first<{ n: number }>(c, 'SELECT count(*)::int AS n FROM t')
      c.track(c.query({ text: 'INSERT INTO t VALUES (3, $1)', values: ['c'] }))
      return r?.n
    })
    expect(n).toBe(2)
    // BEGIN, two inserts and the read in one write; the third insert with COMMIT in another.
    expect(seen.writes).toBe(2)
    expect((await pool.query('SELECT count(*)::int AS n FROM t')).rows[0]).toEqual({ n: 3 })
  })

  it("fails with a tracked write's own error and keeps nothing of the transaction", async () => {
    await pool.query('TRUNCATE t')
    await pool.query("INSERT INTO t VALUES (10, 'x')")
    const failed = transaction(pool, async (c) => {
      c.track(c.query({ text: "INSERT INTO t VALUES (11, 'y')" }))
      c.track(c.query({ text: "INSERT INTO t VALUES (10, 'dup')" }))
      // Answered "current transaction is aborted" (25P02): the cause is the duplicate key.
      await first(c, 'SELECT 1')
    })
    await expect(failed).rejects.toMatchObject({ code: '23505' })
    const rows = await pool.query('SELECT id FROM t ORDER BY id')
    expect(rows.rows).toEqual([{ id: 10 }])
  })

  it('does not report a commit when a tracked write failed after the last read', async () => {
    await pool.query('TRUNCATE t')
    await pool.query("INSERT INTO t VALUES (20, 'x')")
    const failed = transaction(pool, async (c) => {
      c.track(c.query({ text: "INSERT INTO t VALUES (21, 'y')" }))
      c.track(c.query({ text: "INSERT INTO t VALUES (20, 'dup')" }))
    })
    await expect(failed).rejects.toMatchObject({ code: '23505' })
    expect((await pool.query('SELECT count(*)::int AS n FROM t')).rows[0]).toEqual({ n: 1 })
  })

  it('reruns the whole transaction after a serialization failure of a tracked write', async () => {
    await pool.query('TRUNCATE t')
    let attempts = 0
    await transaction(pool, async (c) => {
      attempts++
      c.track(c.query({ text: 'INSERT INTO t VALUES ($1, $2)', values: [30 + attempts, 'r'] }))
      // A tracked write that fails as a lost serialization race does, on the first attempt.
      if (attempts === 1)
        c.track(
          c.query({
            text: `DO $$ BEGIN RAISE EXCEPTION 'lost' USING ERRCODE = 'serialization_failure'; END $$`,
          }),
        )
    })
    expect(attempts).toBe(2)
    const rows = await pool.query('SELECT id FROM t ORDER BY id')
    expect(rows.rows).toEqual([{ id: 32 }])
  })
})
