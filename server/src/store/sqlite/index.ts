import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import type Database from 'better-sqlite3'
import { announceChanges, LocalChangeFeed } from '../change-feed.ts'
import { artifactQueries } from '../queries/artifacts.ts'
import { teamQueries } from '../queries/teams.ts'
import { uiSessionQueries } from '../queries/ui-sessions.ts'
import type { Store } from '../types.ts'
import { sqliteAccounts } from './accounts.ts'
import { sqliteAlertOutbox } from './alert-outbox.ts'
import { sqliteAlerts } from './alerts.ts'
import { openConnection } from './connection.ts'
import { sqliteIngest } from './ingest.ts'
import { sqliteIngestThread } from './ingest-thread.ts'
import { sqliteIssues } from './issues.ts'
import { sqliteLive } from './live.ts'
import { sqliteLoginFailures } from './login-failures.ts'
import { loadMigrations, migrate } from './migrations.ts'
import { sqliteMonitors } from './monitors.ts'
import { sqliteOutcomes } from './outcomes.ts'
import { sqliteProjects } from './projects.ts'
import { sqliteQuotas } from './quotas.ts'
import { sqliteReleaseHealth } from './release-health.ts'
import { sqliteRetention } from './retention.ts'
import { sqlitePort } from './sql-port.ts'
import { sqliteTriage } from './triage.ts'
import { sqliteUiReads } from './ui-reads.ts'
import { sqliteUserLifecycle } from './user-lifecycle.ts'

/**
 * Opens (creating if needed) the embedded SQLite store: WAL journal and `synchronous=FULL`, so
 * a committed group is on disk before any request of it is answered 200. A database file gets
 * its group commits written by a worker thread (ingest-thread.ts; `writerThread: false` keeps
 * them on this thread); `:memory:` cannot be shared with one.
 */
export async function openSqliteStore(
  path: string,
  opts: { writerThread?: boolean } = {},
): Promise<Store & { db: Database.Database }> {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const db = openConnection(path)
  migrate(db, await loadMigrations())
  const writer = (opts.writerThread ?? path !== ':memory:') ? sqliteIngestThread(path) : undefined
  // One process per SQLite file: every cache that must hear of a change lives in this one.
  const changes = new LocalChangeFeed()
  // Storage written once for both backends (../queries/) runs through this port.
  const port = sqlitePort(db)
  const store = {
    dialect: 'sqlite' as const,
    db,
    ...sqliteProjects(db),
    write: writer?.write ?? sqliteIngest(db).write,
    // The writer thread digests units' undigested events (ingest/digest-on-write.ts).
    ...(writer !== undefined ? { digestsOnWriter: true as const } : {}),
    ...sqliteIssues(db),
    ...sqliteAccounts(db),
    ...uiSessionQueries(port),
    ...sqliteLoginFailures(db),
    ...sqliteUiReads(db),
    ...sqliteQuotas(db),
    ...sqliteOutcomes(db),
    ...sqliteTriage(db),
    ...sqliteAlerts(db),
    ...sqliteAlertOutbox(db),
    ...sqliteReleaseHealth(db),
    ...sqliteMonitors(db),
    pruneBefore: writer?.pruneBefore ?? sqliteRetention(db).pruneBefore,
    ...sqliteLive(db),
    ...sqliteUserLifecycle(db),
    ...teamQueries(port),
    ...artifactQueries(port),
    changes,
    close: async () => {
      await writer?.close()
      await changes.close()
      db.close()
    },
  }
  return { ...store, ...announceChanges(store, changes) }
}
