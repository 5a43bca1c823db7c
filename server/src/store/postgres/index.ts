import type pg from 'pg'
import { announceChanges } from '../change-feed.ts'
import { sharedStorage } from '../queries/shared-storage.ts'
import type { Store } from '../store.ts'
import { PgChangeFeed } from './change-feed.ts'
import { CounterFolder } from './counter-deltas.ts'
import { openPool } from './db.ts'
import { pgIngest } from './ingest.ts'
import { PgListener } from './listener.ts'
import { loadPgMigrations, migratePg } from './migrations.ts'
import { ensurePartitions } from './partitions.ts'
import { pgRetention } from './retention.ts'
import { postgresPort } from './sql-port.ts'

/** Connections of the store's pool unless configured (`DATABASE_POOL_SIZE`). */
export const DEFAULT_POOL_SIZE = 10

/**
 * The reads that show counters the ingest path leaves as deltas (counter-deltas.ts): each
 * folds what is pending first, so an answer counts every event acknowledged before it.
 */
const COUNTER_READS = [
  'listIssues',
  'getIssue',
  'outcomeTotals',
  'outcomeTotalsBy',
  'outcomeHours',
  'issueHistogram',
  'searchIssues',
  'tagDistribution',
  'triageIssues',
  'listReleaseHealth',
  'releaseEnvironments',
  'releaseHealthSeries',
] as const satisfies readonly (keyof Store)[]

/** `store` with each of `COUNTER_READS` awaiting `flush()` first. */
function flushingReads<S extends Pick<Store, (typeof COUNTER_READS)[number]>>(
  store: S,
  flush: () => Promise<void>,
): S {
  const out: S = { ...store }
  for (const name of COUNTER_READS) {
    const read = store[name] as (...args: unknown[]) => Promise<unknown>
    ;(out as Record<string, unknown>)[name] = async (...args: unknown[]) => {
      await flush()
      return read(...args)
    }
  }
  return out
}

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
  const folder = new CounterFolder(pool)
  folder.start()
  const store = {
    dialect: 'postgres' as const,
    pool,
    poolSize,
    ...sharedStorage(port),
    ...pgIngest(pool),
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
      fold: { ...folder.stats },
    }),
    close: async () => {
      await folder.close()
      await changes.close()
      await notices.close()
      await pool.end()
    },
  }
  const flushed = flushingReads(store, () => folder.flush())
  return { ...flushed, ...announceChanges(flushed, changes) }
}
