import { HealthHourSums } from '../health-hour-sums.ts'
import { hourOf } from '../hours.ts'
import type { WriteUnit } from '../ingest-store.ts'
import {
  type HealthCounts,
  type HealthRange,
  type ReleaseHealthStore,
  SESSION_CATEGORIES,
  type SessionBucket,
  type SessionUpdate,
} from '../release-health-types.ts'
import { addSessions, addUsers, type CountRow, emptyCounts } from '../rows/health-counts.ts'
import { foldSession, type StoredSession } from '../session-folding.ts'
import { type Dialect, type SqlPort, type Steps, step } from '../sql/port.ts'
import { join, raw, type Statement, sql } from '../sql/statement.ts'

/** Per-category deltas in {@link SESSION_CATEGORIES} order. */
type Vector = [number, number, number, number, number]
const oneHot = (rank: number): Vector => {
  const v: Vector = [0, 0, 0, 0, 0]
  v[rank] = 1
  return v
}

const cols = raw(SESSION_CATEGORIES.join(', '))
const addedCols = raw(
  SESSION_CATEGORIES.map((c) => `${c} = health_hours.${c} + excluded.${c}`).join(', '),
)

/**
 * Adds sessions to an hourly rollup. SQLite (one writer) upserts the row in the transaction;
 * PostgreSQL passes `sums`, which the transaction appends with its other counters as one delta
 * row at its end (postgres/counter-deltas.ts): many nodes' transactions then never wait on one
 * hot hour row.
 */
function* count(
  sums: HealthHourSums | undefined,
  projectId: number,
  r: { release: string; environment: string; hour: number },
  sessions: number,
  v: Vector,
): Steps<void> {
  if (sums !== undefined) {
    sums.add([projectId, r.release, r.environment, r.hour, sessions, ...v])
    return
  }
  yield* step.run(
    sql`INSERT INTO health_hours (project_id, release, environment, hour, sessions, ${cols})
        VALUES (${projectId}, ${r.release}, ${r.environment}, ${r.hour}, ${sessions},
          ${join(
            v.map((n) => sql`${n}`),
            ', ',
          )})
        ON CONFLICT (project_id, release, environment, hour) DO UPDATE SET
          sessions = health_hours.sessions + excluded.sessions, ${addedCols}`,
  )
}

/** The user's worst category of the hour (the one rule session-folding.ts states). */
function* upsertUser(
  dialect: Dialect,
  projectId: number,
  r: { release: string; environment: string },
  hour: number,
  did: string,
  category: number,
): Steps<void> {
  // The larger of two values: SQLite's two-argument max(), PostgreSQL's GREATEST.
  const greatest = raw(dialect === 'postgres' ? 'GREATEST' : 'max')
  yield* step.run(
    sql`INSERT INTO health_users (project_id, release, environment, hour, did, category)
        VALUES (${projectId}, ${r.release}, ${r.environment}, ${hour}, ${did}, ${category})
        ON CONFLICT (project_id, release, environment, hour, did)
        DO UPDATE SET category = ${greatest}(health_users.category, excluded.category)`,
  )
}

function* writeUpdate(
  dialect: Dialect,
  s: SessionUpdate,
  sums: HealthHourSums | undefined,
): Steps<void> {
  // PostgreSQL: two nodes folding one session serialise on its row.
  const read = () =>
    step.first<StoredSession>(
      sql`SELECT release, environment, hour, did, category, status, errors, updated
          FROM health_sessions WHERE project_id = ${s.projectId} AND sid = ${s.sid}
          ${raw(dialect === 'postgres' ? 'FOR UPDATE' : '')}`,
    )
  let old = yield* read()
  let fold = foldSession(old, s)
  if (old === undefined) {
    // A session no row holds yet: two PostgreSQL transactions may both find none (there is no
    // row to lock). The one whose insert comes second waits for the first to commit, inserts
    // nothing, and folds its update into the row the first wrote, as if it had come later.
    const r = fold.row
    const inserted = yield* step.run(
      sql`INSERT INTO health_sessions (project_id, sid, release, environment, hour, did, category,
            status, errors, started, updated)
          VALUES (${s.projectId}, ${s.sid}, ${r.release}, ${r.environment}, ${r.hour}, ${r.did},
            ${r.category}, ${r.status}, ${r.errors}, ${s.started}, ${r.updated})
          ON CONFLICT (project_id, sid) DO NOTHING`,
    )
    if (inserted === 0) {
      old = yield* read()
      if (old === undefined) throw new Error(`session ${s.sid} neither inserted nor found`)
      fold = foldSession(old, s)
    }
  }
  const { row, newSessions, moved } = fold
  if (old !== undefined)
    yield* step.run(
      sql`UPDATE health_sessions SET category = ${row.category}, errors = ${row.errors},
            status = ${row.status}, did = ${row.did}, updated = ${row.updated}
          WHERE project_id = ${s.projectId} AND sid = ${s.sid}`,
    )
  if (moved !== null) {
    // The session leaves its old category (-1) for its new one (+1).
    const v = oneHot(moved.to)
    if (moved.from !== null) v[moved.from] = -1
    yield* count(sums, s.projectId, row, newSessions, v)
  }
  if (row.did !== null)
    yield* upsertUser(dialect, s.projectId, row, row.hour, row.did, row.category)
}

function* writeBucket(
  dialect: Dialect,
  b: SessionBucket,
  sums: HealthHourSums | undefined,
): Steps<void> {
  const v = SESSION_CATEGORIES.map((c) => b.counts[c]) as Vector
  const total = v.reduce((a, n) => a + n, 0)
  if (total === 0) return
  const hour = hourOf(b.started)
  yield* count(sums, b.projectId, { ...b, hour }, total, v)
  if (b.did !== null) {
    // The worst category the bucket counted a session in.
    const worst = v.reduce((w, n, i) => (n > 0 ? i : w), 0)
    yield* upsertUser(dialect, b.projectId, b, hour, b.did, worst)
  }
}

/**
 * The release-health part of the ingest transaction, written once: folds `session` updates and
 * `sessions` buckets of a write unit into the hourly rollups. A session id is counted once; a
 * later update only moves it to a worse category (crashed beats errored beats healthy), so
 * duplicates and out-of-order updates give the same figures. With `sums` (PostgreSQL) the
 * rollup increments are collected there instead of written (see `count`).
 */
export function* healthSteps(
  dialect: Dialect,
  unit: WriteUnit,
  sums?: HealthHourSums,
): Steps<void> {
  for (const s of unit.sessions ?? []) yield* writeUpdate(dialect, s, sums)
  for (const b of unit.sessionBuckets ?? []) yield* writeBucket(dialect, b, sums)
}

/** Rollup sums for a transaction: PostgreSQL defers them to the fold, SQLite writes at once. */
export const healthSumsFor = (dialect: Dialect): HealthHourSums | undefined =>
  dialect === 'postgres' ? new HealthHourSums() : undefined

const sums = raw(SESSION_CATEGORIES.map((c) => `SUM(${c}) AS ${c}`).join(', '))

/** Release-health reads, written once: sums of the hourly rollups, distinct users per range. */
export function releaseHealthQueries(db: SqlPort): ReleaseHealthStore {
  const range = (projectId: number, r: HealthRange): Statement => {
    // CAST: PostgreSQL must know the type of a parameter that is only compared with NULL.
    const env = sql`CAST(${r.environment ?? null} AS TEXT)`
    return sql`project_id = ${projectId} AND hour >= ${r.since} AND hour < ${r.until}
      AND (${env} IS NULL OR environment = ${env})`
  }
  return {
    listReleaseHealth: async (projectId, r, page) => {
      const where = range(projectId, r)
      const at = Number(page.cursor ?? 0)
      const offset = Number.isSafeInteger(at) && at > 0 ? at : 0
      // The page of releases first (one aggregate over the range's rollups, in the list's
      // order), then the environments and users of those releases only.
      const rows = await db.all<CountRow & { release: string; first: number; last: number }>(
        sql`SELECT release, MIN(hour) AS first, MAX(hour) AS last, SUM(sessions) AS sessions, ${sums}
            FROM health_hours WHERE ${where} GROUP BY release ORDER BY last DESC, release
            LIMIT ${page.limit + 1} OFFSET ${offset}`,
      )
      const shown = rows.slice(0, page.limit)
      if (shown.length === 0) return { releases: [] }
      const onPage = sql`${where} AND release IN (${join(
        shown.map((x) => sql`${x.release}`),
        ', ',
      )})`
      const envs = new Map<string, string[]>()
      for (const e of await db.all<{ release: string; environment: string }>(
        sql`SELECT DISTINCT release, environment FROM health_hours WHERE ${onPage} ORDER BY environment`,
      )) {
        const list = envs.get(e.release) ?? []
        list.push(e.environment)
        envs.set(e.release, list)
      }
      const users = new Map<string, HealthCounts>()
      const releases = shown.map((row) => {
        const counts = emptyCounts()
        addSessions(counts, row)
        users.set(row.release, counts)
        return {
          release: row.release,
          firstSeen: row.first,
          lastSeen: row.last,
          environments: envs.get(row.release) ?? [],
          counts,
        }
      })
      for (const u of await db.all<{ release: string; category: number; n: number }>(
        sql`SELECT release, category, COUNT(*) AS n FROM (
              SELECT release, did, MAX(category) AS category FROM health_users WHERE ${onPage}
              GROUP BY release, did
            ) worst GROUP BY release, category`,
      )) {
        const counts = users.get(u.release)
        if (counts !== undefined) addUsers(counts, u.category, u.n)
      }
      return rows.length > page.limit
        ? { releases, next: String(offset + page.limit) }
        : { releases }
    },

    releaseEnvironments: async (projectId, r, limit) =>
      (
        await db.all<{ environment: string }>(
          sql`SELECT DISTINCT environment FROM health_hours WHERE ${range(projectId, r)}
              ORDER BY environment LIMIT ${limit}`,
        )
      ).map((e) => e.environment),

    releaseHealthSeries: async (projectId, release, r) => {
      const known = await db.first(
        sql`SELECT 1 AS one FROM health_hours WHERE project_id = ${projectId} AND release = ${release} LIMIT 1`,
      )
      if (known === undefined) return undefined
      const where = sql`${range(projectId, r)} AND release = ${release}`
      const byHour = new Map<number, HealthCounts>()
      const totals = emptyCounts()
      for (const h of await db.all<CountRow & { hour: number }>(
        sql`SELECT hour, SUM(sessions) AS sessions, ${sums} FROM health_hours
            WHERE ${where} GROUP BY hour ORDER BY hour`,
      )) {
        const counts = emptyCounts()
        addSessions(counts, h)
        addSessions(totals, h)
        byHour.set(h.hour, counts)
      }
      for (const u of await db.all<{ hour: number; category: number; n: number }>(
        sql`SELECT hour, category, COUNT(*) AS n FROM (
              SELECT hour, did, MAX(category) AS category FROM health_users WHERE ${where}
              GROUP BY hour, did
            ) worst GROUP BY hour, category`,
      )) {
        const counts = byHour.get(u.hour)
        if (counts !== undefined) addUsers(counts, u.category, u.n)
      }
      for (const u of await db.all<{ category: number; n: number }>(
        sql`SELECT category, COUNT(*) AS n FROM (
              SELECT did, MAX(category) AS category FROM health_users WHERE ${where} GROUP BY did
            ) worst GROUP BY category`,
      ))
        addUsers(totals, u.category, u.n)
      const series = [...byHour.entries()].map(([hour, counts]) => ({ hour, counts }))
      return { totals, series }
    },
  }
}
