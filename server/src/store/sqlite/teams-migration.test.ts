import Database from 'better-sqlite3'
import { it } from 'vitest'
import { checkTeamsMigration } from '../../../test/store-contract/teams-migration-contract.ts'
import { loadMigrations, migrate } from './migrations.ts'
import { sqlitePort } from './sql-port.ts'

it('a database from before teams: projects go to Default, the first admin runs it, tokens keep every scope', async () => {
  const db = new Database(':memory:')
  db.pragma('foreign_keys = ON')
  try {
    await checkTeamsMigration({
      port: sqlitePort(db),
      migrations: await loadMigrations(),
      migrate: async (list) => migrate(db, list),
      exec: async (script) => void db.exec(script),
    })
  } finally {
    db.close()
  }
})
