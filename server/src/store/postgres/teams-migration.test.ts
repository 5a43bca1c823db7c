import { afterEach, it } from 'vitest'
import { checkTeamsMigration } from '../../../test/store-contract/teams-migration-contract.ts'
import { createTestDatabase, type TestDatabase } from '../../../test/support/postgres-database.ts'
import { openPool } from './db.ts'
import { loadPgMigrations, migratePg } from './migrations.ts'
import { postgresPort } from './sql-port.ts'

let db: TestDatabase | undefined
afterEach(async () => {
  await db?.drop()
  db = undefined
})

it('a database from before teams: projects go to Default, the first admin runs it, tokens keep every scope', async () => {
  db = await createTestDatabase()
  const pool = openPool(db.url, 2)
  try {
    await checkTeamsMigration({
      port: postgresPort(pool),
      migrations: await loadPgMigrations(),
      migrate: async (list) => void (await migratePg(pool, list)),
      exec: async (script) => void (await pool.query(script)),
    })
  } finally {
    await pool.end()
  }
})
