/**
 * `--pg-stats`: where PostgreSQL's time goes during the measured run. The bench's PostgreSQL is
 * started with pg_stat_statements preloaded; the statistics are reset when the measured run
 * starts, `pg_locks` and `pg_stat_activity` are sampled every 100 ms meanwhile, and at its end
 * the statements are printed per group commit (a group commit is one ingest transaction: the
 * count of the events insert, which each group runs once) with their share of execution time.
 */
import pg from 'pg'

/** The server settings `startTempPostgres` gets with `--pg-stats`. */
export const PG_STATS_SETTINGS: Readonly<Record<string, string>> = {
  shared_preload_libraries: 'pg_stat_statements',
  'pg_stat_statements.track': 'all',
  track_io_timing: 'on',
}

/** One statement's share of the measured run. */
export interface StatementFigures {
  query: string
  calls: number
  callsPerGroup: number
  msPerGroup: number
  shareOfTime: number
  rowsPerCall: number
}

/** What the probe saw over the measured run. */
export interface PgProbeFigures {
  groupCommits: number
  commits: number
  eventsPerGroup: number
  statementsPerGroup: number
  msPerGroup: number
  statements: StatementFigures[]
  /** Samples taken, and per sampled wait (`Lock:transactionid`, `LWLock:WALWrite`, …) how often a backend waited on it. */
  samples: number
  waits: Record<string, number>
  /** Ungranted `pg_locks` rows summed over the samples, per lock type and relation. */
  lockWaits: Record<string, number>
  activeBackendsAvg: number
}

const shorten = (q: string) => q.replace(/\s+/g, ' ').trim().slice(0, 110)

/** Starts watching; `stop(storedEvents)` ends the sampling and returns the figures. */
export async function startPgProbe(
  url: string,
): Promise<{ stop(stored: number): Promise<PgProbeFigures> }> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements')
  await client.query('SELECT pg_stat_statements_reset()')
  const commits0 = await commits(client)
  const waits: Record<string, number> = {}
  const lockWaits: Record<string, number> = {}
  let samples = 0
  let active = 0
  let sampling = Promise.resolve()
  const timer = setInterval(() => {
    sampling = sampling.then(async () => {
      const a = await client.query<{ w: string | null; n: string }>(
        `SELECT wait_event_type || ':' || wait_event AS w, count(*) AS n FROM pg_stat_activity
         WHERE state = 'active' AND pid <> pg_backend_pid() AND backend_type = 'client backend'
         GROUP BY 1`,
      )
      const l = await client.query<{ k: string; n: string }>(
        `SELECT locktype || ' ' || coalesce(relation::regclass::text, '') || ' ' || mode AS k,
           count(*) AS n FROM pg_locks WHERE NOT granted GROUP BY 1`,
      )
      samples++
      for (const r of a.rows) {
        const k = r.w ?? 'CPU (no wait)'
        waits[k] = (waits[k] ?? 0) + Number(r.n)
        active += Number(r.n)
      }
      for (const r of l.rows) lockWaits[r.k] = (lockWaits[r.k] ?? 0) + Number(r.n)
    })
  }, 100)
  return {
    async stop(stored) {
      clearInterval(timer)
      await sampling
      try {
        const c = (await commits(client)) - commits0
        const rows = (
          await client.query<{ query: string; calls: string; ms: number; rows: string }>(
            `SELECT query, calls, total_exec_time AS ms, rows FROM pg_stat_statements
             WHERE query NOT LIKE '%pg_stat%' AND query NOT LIKE '%pg_locks%'
               AND query NOT LIKE 'SELECT count(*) AS n FROM events%'
               AND query NOT LIKE 'SELECT pid FROM pg_stat_activity%'
             ORDER BY total_exec_time DESC`,
          )
        ).rows
        const groups =
          rows
            .filter((r) => /^INSERT INTO events \(/.test(r.query))
            .reduce((n, r) => n + Number(r.calls), 0) || 1
        const total = rows.reduce((n, r) => n + r.ms, 0)
        const calls = rows.reduce((n, r) => n + Number(r.calls), 0)
        const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d
        return {
          groupCommits: groups,
          commits: c,
          eventsPerGroup: round(stored / groups, 1),
          statementsPerGroup: round(calls / groups, 1),
          msPerGroup: round(total / groups, 3),
          statements: rows.slice(0, 14).map((r) => ({
            query: shorten(r.query),
            calls: Number(r.calls),
            callsPerGroup: round(Number(r.calls) / groups),
            msPerGroup: round(r.ms / groups, 3),
            shareOfTime: round(r.ms / Math.max(total, 1e-9), 3),
            rowsPerCall: round(Number(r.rows) / Math.max(Number(r.calls), 1), 1),
          })),
          samples,
          waits,
          lockWaits,
          activeBackendsAvg: round(active / Math.max(samples, 1)),
        }
      } finally {
        await client.end()
      }
    },
  }
}

async function commits(c: pg.Client): Promise<number> {
  const r = await c.query<{ n: string }>(
    'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()',
  )
  return Number(r.rows[0]?.n ?? 0)
}

/** The probe's figures as lines for the console. */
export function formatPgProbe(f: PgProbeFigures): string {
  const lines = [
    `pg-stats: ${f.groupCommits} group commits (${f.commits} commits in all), ${f.eventsPerGroup} events, ${f.statementsPerGroup} statements and ${f.msPerGroup} ms of statement execution per group commit`,
    '  calls/group  ms/group  share  rows/call  statement',
    ...f.statements.map(
      (s) =>
        `  ${String(s.callsPerGroup).padStart(11)}  ${s.msPerGroup.toFixed(3).padStart(8)}  ${(s.shareOfTime * 100).toFixed(1).padStart(4)}%  ${String(s.rowsPerCall).padStart(9)}  ${s.query}`,
    ),
    `  backends active per sample (avg of ${f.samples}): ${f.activeBackendsAvg}; what they waited on (backend-samples): ${JSON.stringify(f.waits)}`,
    `  ungranted pg_locks (summed over samples): ${JSON.stringify(f.lockWaits)}`,
  ]
  return lines.join('\n')
}
