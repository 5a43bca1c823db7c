/**
 * How the bench knows what was stored: it counts rows in the database (a 200 answer is a claim;
 * the rows are the fact), or through a target server's API when given a token. Also the bytes
 * the database takes on disk, for the bytes-per-event figure.
 */
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { cpuMs } from './server.ts'

/** Counts stored events; `source` says where the number comes from (printed with it). */
export interface Counter {
  source: 'database' | 'api'
  count(): Promise<number>
  /** Bytes the data takes on disk (undefined when unknown, e.g. through an API). */
  bytesOnDisk(): Promise<number | undefined>
  /** Issues in the database (`--issues N` spreads events over N); absent through an API. */
  issues?(): Promise<number>
  /**
   * Distinct users in the `user` tag rows (`--users N`); absent through an API. On PostgreSQL
   * what the last fold took (the count settles first, and folds run every 200 ms).
   */
  users?(): Promise<number>
}

/** Counts rows of `events` in a SQLite file, read-only beside the running server (WAL). */
export function sqliteCounter(dataDir: string, file = 'ingest.sqlite', where = ''): Counter {
  const query = (q: string): number => {
    const db = new Database(join(dataDir, file), { readonly: true, fileMustExist: true })
    try {
      return db.prepare<[], { n: number }>(q).get()?.n ?? 0
    } finally {
      db.close()
    }
  }
  return {
    source: 'database',
    count: async () => query(`SELECT count(*) AS n FROM events ${where}`),
    issues: async () => query('SELECT count(*) AS n FROM issues'),
    users: async () =>
      query("SELECT count(DISTINCT value) AS n FROM issue_tags WHERE key = 'user'"),
    // Database, WAL and shared-memory files together, after the WAL is checkpointed into the
    // database and truncated: a WAL file keeps its largest size after a checkpoint, so counted
    // as it is, it would add pages the database already holds (≈4 MB at the default
    // 1,000-page auto-checkpoint, 8 % of a 10 s run at 500 bytes an event). The server is idle
    // when this runs; if a reader still blocks the checkpoint, the files are counted as they are.
    bytesOnDisk: async () => {
      const db = new Database(join(dataDir, file), { fileMustExist: true, timeout: 10_000 })
      try {
        const [r] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number; log: number }[]
        if (r === undefined || r.busy !== 0 || r.log !== 0)
          process.stderr.write(
            `bench: WAL checkpoint incomplete (${JSON.stringify(r)}): WAL counted\n`,
          )
      } finally {
        db.close()
      }
      return readdirSync(dataDir)
        .filter((f) => f.startsWith(file))
        .reduce((n, f) => n + statSync(join(dataDir, f)).size, 0)
    },
  }
}

/**
 * Counts rows of `events` in a PostgreSQL database. `where` narrows the count (`--retention`
 * counts only new events while the sweep removes old ones).
 */
export function postgresCounter(url: string, where = ''): Counter {
  const query = async (sql: string): Promise<number> => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      const r = await client.query<{ n: string }>(sql)
      return Number(r.rows[0]?.n ?? Number.NaN)
    } finally {
      await client.end()
    }
  }
  return {
    source: 'database',
    count: () => query(`SELECT count(*) AS n FROM events ${where}`),
    issues: () => query('SELECT count(*) AS n FROM issues'),
    users: () => query("SELECT count(DISTINCT value) AS n FROM issue_tags WHERE key = 'user'"),
    bytesOnDisk: () => query('SELECT pg_database_size(current_database()) AS n'),
  }
}

/**
 * Sums the `count` of every issue of a project through the management API
 * (`GET /api/0/projects/{id}/issues/`), following this server's `x-next-cursor` header or a
 * Sentry-style `Link: <…>; rel="next"; results="true"`. Sentry's API returns `count` as a string.
 */
export function apiCounter(baseUrl: string, projectId: string, token: string): Counter {
  return {
    source: 'api',
    count: async () => {
      let total = 0
      let next: string | undefined = `/api/0/projects/${projectId}/issues/?limit=1000`
      for (let pages = 0; next !== undefined && pages < 1000; pages++) {
        const res: Response = await fetch(new URL(next, baseUrl), {
          headers: { authorization: `Bearer ${token}` },
        })
        if (!res.ok) throw new Error(`counting through the API: ${res.status} ${await res.text()}`)
        const issues = (await res.json()) as unknown
        if (!Array.isArray(issues)) throw new Error('counting through the API: not an issue list')
        for (const i of issues as { count?: unknown }[]) total += Number(i.count ?? 0)
        const cursor = res.headers.get('x-next-cursor')
        const link = /<([^>]+)>; rel="next"; results="true"/.exec(res.headers.get('link') ?? '')
        next =
          cursor !== null
            ? `/api/0/projects/${projectId}/issues/?limit=1000&cursor=${encodeURIComponent(cursor)}`
            : link?.[1]
      }
      return total
    },
    bytesOnDisk: async () => undefined,
  }
}

/**
 * Bytes of WAL PostgreSQL has written so far (`pg_current_wal_lsn()` against the start of the
 * log): the difference over a run is the WAL the run's events cost (with `full_page_writes`
 * on, as the bench runs it, the full pages written after a checkpoint included).
 */
export function postgresWal(url: string): () => Promise<number> {
  return async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      const r = await client.query<{ n: string }>(
        "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0') AS n",
      )
      return Number(r.rows[0]?.n ?? Number.NaN)
    } finally {
      await client.end()
    }
  }
}

/**
 * CPU ms used so far by the processes of a local PostgreSQL (every backend and background
 * process `pg_stat_activity` lists, read from /proc), for the database's share of the cost per
 * event. Processes seen once are remembered: a backend that ended keeps its last reading.
 */
export function postgresCpu(url: string): () => Promise<number> {
  const last = new Map<number, number>()
  return async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      const r = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity')
      for (const { pid } of r.rows) {
        try {
          last.set(pid, cpuMs(pid))
        } catch {
          // ended between the query and the read
        }
      }
    } finally {
      await client.end()
    }
    let sum = 0
    for (const ms of last.values()) sum += ms
    return sum
  }
}
