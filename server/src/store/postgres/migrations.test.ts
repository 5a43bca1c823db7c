import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../../test/support/postgres-database.ts'
import { MigrationMismatchError } from '../migration-plan.ts'
import { loadPgMigrations, migratePg } from './migrations.ts'

let db: TestDatabase | undefined
const pools: pg.Pool[] = []
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.end()))
  await db?.drop()
  db = undefined
})
const pool = (url: string) => {
  const p = new pg.Pool({ connectionString: url, max: 2 })
  pools.push(p)
  return p
}

describe('postgres migrations', () => {
  it('two servers migrating one database at once apply each migration once', async () => {
    db = await createTestDatabase()
    const code = await loadPgMigrations()
    const applied = await Promise.all([
      migratePg(pool(db.url), code),
      migratePg(pool(db.url), code),
    ])
    // One of them did the work under the advisory lock, the other found nothing pending.
    expect(applied.sort()).toEqual([0, code.length])
    const p = pool(db.url)
    const { rows } = await p.query('SELECT version, checksum FROM schema_migrations')
    expect(rows).toHaveLength(code.length)
    const { rows: tables } = await p.query(
      "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public' AND tablename = 'events_default'",
    )
    expect(tables[0]).toEqual({ n: 1 })
  })

  it('refuses a database whose applied migration differs from the code', async () => {
    db = await createTestDatabase()
    const code = await loadPgMigrations()
    const p = pool(db.url)
    await migratePg(p, code)
    await p.query("UPDATE schema_migrations SET checksum = 'edited' WHERE version = 1")
    await expect(migratePg(p, code)).rejects.toThrow(MigrationMismatchError)
    // The lock was released despite the refusal: another migrator does not hang.
    await p.query('UPDATE schema_migrations SET checksum = NULL WHERE version = 1')
    await expect(migratePg(pool(db.url), code)).resolves.toBe(0)
  })
})
