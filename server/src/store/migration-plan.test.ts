import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { MigrationMismatchError, migrationChecksum, pendingMigrations } from './migration-plan.ts'
import { loadMigrations, migrate } from './sqlite/migrations.ts'

const m = (version: number, sql: string) => ({ version, name: `m${version}`, sql })

describe('migration plan', () => {
  it('returns what is not applied yet, in order', () => {
    const code = [m(1, 'a'), m(2, 'b'), m(3, 'c')]
    const applied = [{ version: 1, name: 'm1', checksum: migrationChecksum('a') }]
    expect(pendingMigrations(applied, code).map((x) => x.version)).toEqual([2, 3])
  })

  it('refuses an applied migration whose checksum differs', () => {
    const applied = [{ version: 1, name: 'm1', checksum: migrationChecksum('edited') }]
    expect(() => pendingMigrations(applied, [m(1, 'a')])).toThrow(MigrationMismatchError)
  })

  it('refuses a database migrated by a newer server', () => {
    const applied = [{ version: 9, name: 'm9', checksum: 'x' }]
    expect(() => pendingMigrations(applied, [m(1, 'a')])).toThrow(/newer version/)
  })
})

describe('sqlite migrations', () => {
  it('records checksums, is idempotent and refuses a database with an edited migration', async () => {
    const db = new Database(':memory:')
    const code = await loadMigrations()
    migrate(db, code)
    migrate(db, code)
    const rows = db.prepare('SELECT version, checksum FROM schema_migrations').all()
    expect(rows).toHaveLength(code.length)
    db.prepare('UPDATE schema_migrations SET checksum = ? WHERE version = 1').run('0'.repeat(64))
    expect(() => migrate(db, code)).toThrow(MigrationMismatchError)
    db.close()
  })

  it('fills in checksums of a database created before they were recorded', async () => {
    const db = new Database(':memory:')
    const code = await loadMigrations()
    migrate(db, code)
    db.exec('UPDATE schema_migrations SET checksum = NULL')
    migrate(db, code)
    const nulls = db.prepare('SELECT count(*) AS n FROM schema_migrations WHERE checksum IS NULL')
    expect(nulls.get()).toEqual({ n: 0 })
    db.close()
  })
})
