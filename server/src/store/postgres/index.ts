import type pg from 'pg'
import { announceChanges } from '../change-feed.ts'
import { artifactQueries } from '../queries/artifacts.ts'
import { teamQueries } from '../queries/teams.ts'
import { uiSessionQueries } from '../queries/ui-sessions.ts'
import type { Store } from '../types.ts'
import { pgAccounts } from './accounts.ts'
import { pgAlertOutbox } from './alert-outbox.ts'
import { pgAlerts } from './alerts.ts'
import { PgChangeFeed } from './change-feed.ts'
import { openPool } from './db.ts'
import { pgIngest } from './ingest.ts'
import { pgIssues } from './issues.ts'
import { pgLive } from './live.ts'
import { pgLoginFailures } from './login-failures.ts'
import { loadPgMigrations, migratePg } from './migrations.ts'
import { pgMonitors } from './monitors.ts'
import { pgOutcomes } from './outcomes.ts'
import { ensurePartitions } from './partitions.ts'
import { pgProjects } from './projects.ts'
import { pgQuotas } from './quotas.ts'
import { pgReleaseHealth } from './release-health.ts'
import { pgRetention } from './retention.ts'
import { postgresPort } from './sql-port.ts'
import { pgTriage } from './triage.ts'
import { pgUiReads } from './ui-reads.ts'
import { pgUserLifecycle } from './user-lifecycle.ts'

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
    ...pgProjects(pool),
    ...pgIngest(pool),
    ...pgIssues(pool),
    ...pgAccounts(pool),
    ...uiSessionQueries(port),
    ...pgLoginFailures(pool),
    ...pgUiReads(pool),
    ...pgQuotas(pool),
    ...pgOutcomes(pool),
    ...pgTriage(pool),
    ...pgAlerts(pool),
    ...pgAlertOutbox(pool),
    ...pgReleaseHealth(pool),
    ...pgMonitors(pool),
    ...pgRetention(pool),
    ...pgLive(pool),
    ...pgUserLifecycle(pool),
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
