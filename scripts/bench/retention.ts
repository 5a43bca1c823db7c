/**
 * `--retention N`: ingest throughput while the retention sweep removes N expired events, against
 * the same server on the same data without a sweep (the issue's "within 10 %" figure).
 *
 * Both arms start on storage pre-filled with N events received 120–127 days ago (older than the
 * default `RETENTION_DAYS` of 90), in one issue of their own project, payloads of ≈3.5 KB like
 * the bench's stored events. Only events received since the run began are counted as stored.
 *
 * - SQLite: the server's own sweeper runs (`RETENTION_DAYS=90`; it starts when the server is
 *   ready, before the warm-up) with its batched deletes; N must be large enough that it is still
 *   running when the measured window ends, which the run checks (expired rows left).
 * - PostgreSQL: the fill goes into the daily partitions of those days, which the sweep drops.
 *   The drop is one statement, so a sweep at start-up would be over before the window: the bench
 *   runs the sweep itself (`sweepRetention` on its own pool, as another node's sweeper would)
 *   when the measured window starts, with the server's sweeper off; the output says when it
 *   ended (the idempotency keys in `event_ids` go by batched deletes, so N sets its length).
 */
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { encodePayload } from '../../server/src/store/payload-codec.ts'
import { openPool } from '../../server/src/store/postgres/db.ts'
import { openPostgresStore } from '../../server/src/store/postgres/index.ts'
import { createDayPartition } from '../../server/src/store/postgres/partitions.ts'
import { pgRetention } from '../../server/src/store/postgres/retention.ts'
import { sweepRetention } from '../../server/src/store/retention.ts'
import { openSqliteStore } from '../../server/src/store/sqlite/index.ts'
import type { Store } from '../../server/src/store/types.ts'
import { type StartOptions, startInstance } from './instance.ts'
import { type IngestFigures, type LoadShape, measureIngest } from './measure.ts'
import type { Storage } from './server.ts'

const DAY = 86_400_000
const RETENTION_DAYS = 90
/** The fill spreads over this many days, the oldest 120 + DAYS days ago. */
const DAYS = 8
const PAYLOAD = JSON.stringify({ message: randomBytes(1750).toString('hex') })
/** The same payload as the store writes it (payload-codec.ts), for the rows filled by SQL. */
const STORED_PAYLOAD = encodePayload(PAYLOAD)

/** The first day of the fill (UTC midnight). */
const fillStart = (now: number) => Math.floor(now / DAY) * DAY - (120 + DAYS) * DAY

/** Creates a project with one expired issue through the store, then returns its ids. */
async function seedIssue(store: Store, now: number) {
  const { project, key } = await store.createProject(
    'expired',
    'expired',
    randomBytes(16).toString('hex'),
  )
  const at = fillStart(now)
  const [r] = await store.write([
    {
      events: [
        {
          projectId: project.id,
          keyId: key.id,
          eventId: 'f'.repeat(32),
          timestamp: at,
          received: at,
          level: 'error',
          title: 'expired',
          culprit: 'c',
          type: 'Error',
          value: 'v',
          release: null,
          environment: 'production',
          component: null,
          hash: 'expired',
          groupingVersion: 'v1',
          payload: PAYLOAD,
        },
      ],
      outcomes: [],
    },
  ])
  return { projectId: project.id, keyId: key.id, issueId: r?.events[0]?.issueId ?? 0 }
}

/** Loads `n` expired events straight into the storage, before the server starts. */
export async function fillExpired(s: Storage, n: number, now: number): Promise<void> {
  const start = fillStart(now)
  // Event n's time: spread over DAYS days (a few ms apart within a day).
  const at = (col: string) => `${start} + (${col} % ${DAYS}) * ${DAY} + ${col} * 7 % ${DAY}`
  if ('databaseUrl' in s) {
    const store = await openPostgresStore(s.databaseUrl, { poolSize: 2 })
    try {
      for (let d = 0; d < DAYS; d++) await createDayPartition(store.pool, start + d * DAY)
      const ids = await seedIssue(store, now)
      await store.pool.query(
        `INSERT INTO events (project_id, event_id, issue_id, key_id, timestamp, received, level, release, environment, component, payload)
         SELECT $1, lpad(to_hex(g), 32, '0'), $2, $3, ${at('g')}, ${at('g')}, 'error', NULL, 'production', NULL, $4
         FROM generate_series(1, $5::bigint) g`,
        [ids.projectId, ids.issueId, ids.keyId, STORED_PAYLOAD, n - 1],
      )
      await store.pool.query(
        `INSERT INTO event_ids (project_id, event_id, received)
         SELECT project_id, event_id, received FROM events WHERE project_id = $1
         ON CONFLICT DO NOTHING`,
        [ids.projectId],
      )
      await store.pool.query('ANALYZE')
    } finally {
      await store.close()
    }
    return
  }
  const file = join(s.dataDir, 'ingest.sqlite')
  const store = await openSqliteStore(file)
  const ids = await seedIssue(store, now)
  await store.close()
  const db = new Database(file)
  try {
    db.prepare(
      `WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ?)
       INSERT INTO events (project_id, event_id, issue_id, key_id, timestamp, received, level, release, environment, component, payload)
       SELECT ?, printf('%032x', n), ?, ?, ${at('n')}, ${at('n')}, 'error', NULL, 'production', NULL, ? FROM g`,
    ).run(n - 1, ids.projectId, ids.issueId, ids.keyId, STORED_PAYLOAD)
    db.prepare(
      `INSERT OR REPLACE INTO issue_hours (issue_id, hour, events)
       SELECT issue_id, (received / 3600000) * 3600000 AS h, count(*) FROM events
       WHERE issue_id = ? GROUP BY issue_id, h`,
    ).run(ids.issueId)
    db.pragma('wal_checkpoint(TRUNCATE)')
  } finally {
    db.close()
  }
}

/** Counts the events older than the retention cutoff left in the storage. */
async function expiredLeft(s: Storage, now: number): Promise<number> {
  const cutoff = now - RETENTION_DAYS * DAY
  if ('databaseUrl' in s) {
    const c = new pg.Client({ connectionString: s.databaseUrl })
    await c.connect()
    try {
      const r = await c.query<{ n: string }>(
        'SELECT count(*) AS n FROM events WHERE received < $1',
        [cutoff],
      )
      return Number(r.rows[0]?.n)
    } finally {
      await c.end()
    }
  }
  const db = new Database(join(s.dataDir, 'ingest.sqlite'), { readonly: true })
  try {
    return (
      db
        .prepare<[number], { n: number }>('SELECT count(*) AS n FROM events WHERE received < ?')
        .get(cutoff)?.n ?? 0
    )
  } finally {
    db.close()
  }
}

/** One arm of the comparison: its ingest figures and, with a sweep, what the sweep did. */
export interface RetentionRun {
  ingest: IngestFigures
  sweep: boolean
  /** Expired events left when the window ended (SQLite: > 0 means the sweep covered it). */
  expiredLeftAtEnd: number
  /** PostgreSQL: when the bench's sweep ran, in s from the measured window's start. */
  sweepFromS?: number
  sweepToS?: number
  removed?: number
}

/** Runs one arm on a freshly filled server: with the sweep running, or without. */
export async function retentionRun(
  o: StartOptions,
  shape: LoadShape,
  n: number,
  sweep: boolean,
): Promise<RetentionRun> {
  const now = Date.now()
  let storage: Storage | undefined
  const inst = await startInstance({
    ...o,
    // The server's sweeper: on for the SQLite arm with a sweep; PostgreSQL's is run below.
    env: { ...o.env, RETENTION_DAYS: sweep && o.db === 'sqlite' ? String(RETENTION_DAYS) : '0' },
    countSince: now,
    prepare: async (s) => {
      storage = s
      await fillExpired(s, n, now)
    },
  })
  try {
    const where = storage as Storage
    let swept: Promise<{ from: number; to: number; removed: number }> | undefined
    const windowStart = performance.now() + shape.warmupSeconds * 1000
    if (sweep && 'databaseUrl' in where) {
      swept = new Promise((r) => setTimeout(r, shape.warmupSeconds * 1000)).then(async () => {
        const pool = openPool(where.databaseUrl, 2)
        try {
          const from = performance.now()
          const res = await sweepRetention(pgRetention(pool), RETENTION_DAYS, Date.now())
          return { from, to: performance.now(), removed: res.events }
        } finally {
          await pool.end()
        }
      })
    }
    const ingest = await measureIngest(inst.target, shape)
    const left = await expiredLeft(where, now)
    const s = swept === undefined ? undefined : await swept
    return {
      ingest,
      sweep,
      expiredLeftAtEnd: left,
      ...(s === undefined
        ? {}
        : {
            sweepFromS: Math.round((s.from - windowStart) / 100) / 10,
            sweepToS: Math.round((s.to - windowStart) / 100) / 10,
            removed: s.removed,
          }),
    }
  } finally {
    await inst.stop()
  }
}
