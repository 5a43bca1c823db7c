import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import type Database from 'better-sqlite3'
import { announceChanges, LocalChangeFeed } from '../change-feed.ts'
import { sharedStorage } from '../queries/shared-storage.ts'
import type { Store } from '../store.ts'
import { openConnection } from './connection.ts'
import { sqliteIngest } from './ingest.ts'
import { sqliteIngestThread, writerBusySeconds } from './ingest-thread.ts'
import { sqliteIssues } from './issues.ts'
import { loadMigrations, migrate } from './migrations.ts'
import { sqliteRetention } from './retention.ts'
import { sqlitePort } from './sql-port.ts'

/**
 * Opens (creating if needed) the embedded SQLite store: WAL journal and `synchronous=FULL`, so
 * a committed group is on disk before any request of it is answered 200. A database file gets
 * its group commits written by a worker thread (ingest-thread.ts; `writerThread: false` keeps
 * them on this thread); `:memory:` cannot be shared with one. `digestModule` is the URL of the
 * module that thread digests undigested events with (`ingest-thread.ts` `WriterDigest`); without
 * it the caller digests them before a write.
 */
export async function openSqliteStore(
  path: string,
  opts: {
    writerThread?: boolean
    digestModule?: string | undefined
    sourceMapCacheBytes?: number | undefined
  } = {},
): Promise<Store & { db: Database.Database }> {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const db = openConnection(path)
  migrate(db, await loadMigrations())
  const writer =
    (opts.writerThread ?? path !== ':memory:')
      ? sqliteIngestThread(path, opts.digestModule, opts.sourceMapCacheBytes)
      : undefined
  // One process per SQLite file: every cache that must hear of a change lives in this one.
  const changes = new LocalChangeFeed()
  // Storage written once for both backends (../queries/) runs through this port.
  const port = sqlitePort(db)
  const store = {
    dialect: 'sqlite' as const,
    db,
    ...sharedStorage(port),
    write: writer?.write ?? sqliteIngest(db).write,
    // The writer thread digests units' undigested events with the injected digest module.
    ...(writer !== undefined && opts.digestModule !== undefined
      ? { digestsOnWriter: true as const }
      : {}),
    ...sqliteIssues(db),
    pruneBefore: writer?.pruneBefore ?? sqliteRetention(db).pruneBefore,
    changes,
    ...(writer !== undefined ? { usage: () => ({ writerBusySeconds: writerBusySeconds() }) } : {}),
    close: async () => {
      await writer?.close()
      await changes.close()
      db.close()
    },
  }
  return { ...store, ...announceChanges(store, changes) }
}
