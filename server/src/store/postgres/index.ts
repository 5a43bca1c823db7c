import type pg from 'pg'
import { announceChanges } from '../change-feed.ts'
import { accountQueries } from '../queries/accounts.ts'
import { alertOutboxQueries } from '../queries/alert-outbox.ts'
import { alertQueries } from '../queries/alerts.ts'
import { artifactQueries } from '../queries/artifacts.ts'
import { liveQueries } from '../queries/live.ts'
import { loginFailureQueries } from '../queries/login-failures.ts'
import { outcomeQueries } from '../queries/outcomes.ts'
import { projectQueries } from '../queries/projects.ts'
import { quotaQueries } from '../queries/quotas.ts'
import { teamQueries } from '../queries/teams.ts'
import { triageQueries } from '../queries/triage.ts'
import { uiReadQueries } from '../queries/ui-reads.ts'
import { uiSessionQueries } from '../queries/ui-sessions.ts'
import { userLifecycleQueries } from '../queries/user-lifecycle.ts'
import type { Store } from '../types.ts'
import { PgChangeFeed } from './change-feed.ts'
import { openPool } from './db.ts'
import { pgIngest } from './ingest.ts'
import { pgIssues } from './issues.ts'
import { loadPgMigrations, migratePg } from './migrations.ts'
import { pgMonitors } from './monitors.ts'
import { ensurePartitions } from './partitions.ts'
import { pgReleaseHealth } from './release-health.ts'
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
  try {
    await migratePg(pool, await loadPgMigrations())
    await ensurePartitions(pool, Date.now())
    changes = await PgChangeFeed.open(url, pool)
  } catch (err) {
    await pool.end()
    throw err
  }
  // Storage written once for both backends (../queries/) runs through this port.
  const port = postgresPort(pool)
  const store = {
    dialect: 'postgres' as const,
    pool,
    poolSize,
    ...projectQueries(port),
    ...pgIngest(pool),
    ...pgIssues(pool),
    ...accountQueries(port),
    ...uiSessionQueries(port),
    ...loginFailureQueries(port),
    ...uiReadQueries(port),
    ...quotaQueries(port),
    ...outcomeQueries(port),
    ...triageQueries(port),
    ...alertQueries(port),
    ...alertOutboxQueries(port),
    ...pgReleaseHealth(pool),
    ...pgMonitors(pool),
    ...pgRetention(pool),
    ...liveQueries(port),
    ...userLifecycleQueries(port),
    ...teamQueries(port),
    ...artifactQueries(port),
    changes,
    close: async () => {
      await changes.close()
      await pool.end()
    },
  }
  return { ...store, ...announceChanges(store, changes) }
}
