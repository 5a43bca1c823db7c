import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import type { Store } from '../types.ts'
import { sqliteAccounts } from './accounts.ts'
import { sqliteIngest } from './ingest.ts'
import { sqliteIssues } from './issues.ts'
import { loadMigrations, migrate } from './migrations.ts'
import { sqliteProjects } from './projects.ts'

/**
 * Opens (creating if needed) the embedded SQLite store: WAL journal and `synchronous=FULL`, so
 * a committed group is on disk before any request of it is answered 200.
 */
export async function openSqliteStore(path: string): Promise<Store & { db: Database.Database }> {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const db = new Database(path)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = FULL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  migrate(db, await loadMigrations())
  return {
    dialect: 'sqlite',
    db,
    ...sqliteProjects(db),
    ...sqliteIngest(db),
    ...sqliteIssues(db),
    ...sqliteAccounts(db),
    close: async () => {
      db.close()
    },
  }
}
