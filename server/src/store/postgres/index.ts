import type pg from 'pg'
import { announceChanges } from '../change-feed.ts'
import { sharedStorage } from '../queries/shared-storage.ts'
import type { Store } from '../store.ts'
import { PgChangeFeed } from './change-feed.ts'
import { openPool } from './db.ts'
import { pgIngest } from './ingest.ts'
import { pgIssues } from './issues.ts'
import { PgListener } from './listener.ts'
import { loadPgMigrations, migratePg } from './migrations.ts'
import { ensurePartitions } from './partitions.ts'
import { pgRetention } from './retention.ts'
import { postgresPort } from './sql-port.ts'

/** Connections of the store's pool unless configured (`DATABASE_POOL_SIZE`). */
export const DEFAULT_POOL_SIZE = 10

/**
 * Opens the PostgreSQL store on `url`: a pool of `poolSize` connections, the migrations applied
 * under the advisory lock (migrations.ts) before anything else runs. `poolSize` is also how many
 * group commits may be in flight at once (app.ts).
 */
export async function openPostgresStore(
  url: string,
  opts: { poolSize?: number } = {},
): Promise<Store & { pool: pg.Pool; poolSize: number }> {
  const poolSize = Math.max(1, opts.poolSize ?? DEFAULT_POOL_SIZE)
  const pool = openPool(url, poolSize)
  let changes: PgChangeFeed
  let listener: PgListener | undefined
  try {
    await migratePg(pool, await loadPgMigrations())
    await ensurePartitions(pool, Date.now())
    // One listening connection per node, shared by the change feed and the live feed.
    listener = await PgListener.open(url)
    changes = await PgChangeFeed.open(pool, listener)
  } catch (err) {
    await listener?.close()
    await pool.end()
    throw err
  }
  const notices = listener
  // Storage written once for both backends (../queries/) runs through this port.
  const port = postgresPort(pool)
  const store = {
    dialect: 'postgres' as const,
    pool,
    poolSize,
    ...sharedStorage(port),
    ...pgIngest(pool),
    ...pgIssues(pool),
    ...pgRetention(pool),
    changes,
    notices,
    usage: () => ({
      pool: {
        inUse: pool.totalCount - pool.idleCount,
        idle: pool.idleCount,
        waiting: pool.waitingCount,
        size: poolSize,
      },
      feed: changes.stats(),
    }),
    close: async () => {
      await changes.close()
      await notices.close()
      await pool.end()
    },
  }
  return { ...store, ...announceChanges(store, changes) }
}
