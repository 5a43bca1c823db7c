import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import type { Store } from '../types.ts'
import { sqliteAccounts } from './accounts.ts'
import { sqliteAlerts } from './alerts.ts'
import { sqliteIngest } from './ingest.ts'
import { sqliteIssues } from './issues.ts'
import { loadMigrations, migrate } from './migrations.ts'
import { sqliteMonitors } from './monitors.ts'
import { sqliteOutcomes } from './outcomes.ts'
import { sqliteProjects } from './projects.ts'
import { sqliteQuotas } from './quotas.ts'
import { sqliteReleaseHealth } from './release-health.ts'
import { sqliteSessions } from './sessions.ts'
import { sqliteTriage } from './triage.ts'
import { sqliteUiReads } from './ui-reads.ts'

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
    ...sqliteSessions(db),
    ...sqliteUiReads(db),
    ...sqliteQuotas(db),
    ...sqliteOutcomes(db),
    ...sqliteTriage(db),
    ...sqliteAlerts(db),
    ...sqliteReleaseHealth(db),
    ...sqliteMonitors(db),
    close: async () => {
      db.close()
    },
  }
}
