import { afterAll, describe, expect, it } from 'vitest'
import { createTestDatabase } from '../../../test/support/postgres-database.ts'
import { openPostgresStore } from '../postgres/index.ts'
import { postgresPort } from '../postgres/sql-port.ts'
import { openSqliteStore } from '../sqlite/index.ts'
import { sqlitePort } from '../sqlite/sql-port.ts'
import { type SqlPort, type Steps, step } from './port.ts'
import { sql } from './statement.ts'

// The shared port, on both real backends: the same statements give the same rows, and a
// transaction commits whole or not at all.
const closers: (() => Promise<void>)[] = []
afterAll(async () => {
  for (const c of closers) await c()
})

const backends: [string, () => Promise<SqlPort>][] = [
  [
    'sqlite',
    async () => {
      const store = await openSqliteStore(':memory:')
      closers.push(store.close)
      return sqlitePort(store.db)
    },
  ],
  [
    'postgres',
    async () => {
      const db = await createTestDatabase()
      const store = await openPostgresStore(db.url, { poolSize: 2 })
      closers.push(async () => {
        await store.close()
        await db.drop()
      })
      return postgresPort(store.pool)
    },
  ],
]

for (const [name, open] of backends) {
  describe(`sql port on ${name}`, () => {
    it('reads and writes rows with bound values, booleans as 0/1', async () => {
      const db = await open()
      expect(db.dialect).toBe(name)
      const t = await db.first<{ id: number; slug: string }>(
        sql`INSERT INTO teams (name, slug, created_at) VALUES (${"O'Brien; --"}, ${'ob'}, ${5}) RETURNING id, slug`,
      )
      expect(t?.slug).toBe('ob')
      const rows = await db.all<{ name: string; created_at: number }>(
        sql`SELECT name, created_at FROM teams WHERE slug = ${'ob'}`,
      )
      expect(rows).toEqual([{ name: "O'Brien; --", created_at: 5 }])
      expect(await db.run(sql`UPDATE teams SET created_at = ${true} WHERE slug = ${'ob'}`)).toBe(1)
      expect(await db.first(sql`SELECT created_at FROM teams WHERE slug = ${'ob'}`)).toEqual({
        created_at: 1,
      })
      expect(await db.first(sql`SELECT id FROM teams WHERE slug = ${'none'}`)).toBeUndefined()
    })

    it('commits the steps of a transaction together and returns their result', async () => {
      const db = await open()
      function* twoTeams(): Steps<number> {
        yield* step.run(sql`INSERT INTO teams (name, slug, created_at) VALUES ('a', 'tx-a', 1)`)
        yield* step.run(sql`INSERT INTO teams (name, slug, created_at) VALUES ('b', 'tx-b', 1)`)
        const rows = yield* step.all<{ slug: string }>(
          sql`SELECT slug FROM teams WHERE slug LIKE ${'tx-%'} ORDER BY slug`,
        )
        return rows.length
      }
      expect(await db.transaction(twoTeams)).toBe(2)
      expect(await db.all(sql`SELECT slug FROM teams WHERE slug LIKE ${'tx-%'}`)).toHaveLength(2)
    })

    it('rolls every step back when one fails', async () => {
      const db = await open()
      function* failing(): Steps<void> {
        yield* step.run(sql`INSERT INTO teams (name, slug, created_at) VALUES ('c', 'rb-c', 1)`)
        // The slug is unique: the second insert fails, and the first must not stay.
        yield* step.run(sql`INSERT INTO teams (name, slug, created_at) VALUES ('c', 'rb-c', 1)`)
      }
      await expect(db.transaction(failing)).rejects.toThrow()
      expect(await db.all(sql`SELECT slug FROM teams WHERE slug = ${'rb-c'}`)).toEqual([])
    })
  })
}
