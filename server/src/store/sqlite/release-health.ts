import type Database from 'better-sqlite3'
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
import type { WriteUnit } from '../types.ts'

const HOUR = 3_600_000
const hourOf = (ms: number): number => Math.floor(ms / HOUR) * HOUR

/** Per-category deltas in {@link SESSION_CATEGORIES} order. */
type Vector = [number, number, number, number, number]
const zero = (): Vector => [0, 0, 0, 0, 0]
const oneHot = (rank: number, by = 1): Vector => {
  const v = zero()
  v[rank] = by
  return v
}

/**
 * The release-health part of the ingest transaction: folds `session` updates and `sessions`
 * buckets of a write unit into the hourly rollups. A session id is counted once; a later
 * update only moves it to a worse category (crashed beats errored beats healthy), so duplicates
 * and out-of-order updates give the same figures.
 */
export function sqliteHealthWriter(db: Database.Database): (unit: WriteUnit) => void {
  const getSession = db.prepare<[number, string], StoredSession>(
    `SELECT release, environment, hour, did, category, status, errors, updated
     FROM health_sessions WHERE project_id = ? AND sid = ?`,
  )
  const insertSession = db.prepare(
    `INSERT INTO health_sessions (project_id, sid, release, environment, hour, did, category, status, errors, started, updated)
     VALUES (@projectId, @sid, @release, @environment, @hour, @did, @category, @status, @errors, @started, @updated)`,
  )
  const updateSession = db.prepare(
    `UPDATE health_sessions SET category = @category, errors = @errors, status = @status,
       did = @did, updated = @updated
     WHERE project_id = @projectId AND sid = @sid`,
  )
  const cols = SESSION_CATEGORIES.join(', ')
  const addCounts = db.prepare(
    `INSERT INTO health_hours (project_id, release, environment, hour, sessions, ${cols})
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (project_id, release, environment, hour) DO UPDATE SET sessions = sessions + excluded.sessions,
       ${SESSION_CATEGORIES.map((c) => `${c} = ${c} + excluded.${c}`).join(', ')}`,
  )
  const upsertUser = db.prepare(
    `INSERT INTO health_users (project_id, release, environment, hour, did, category) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (project_id, release, environment, hour, did) DO UPDATE SET category = max(category, excluded.category)`,
  )

  const count = (
    projectId: number,
    r: { release: string; environment: string; hour: number },
    sessions: number,
    v: Vector,
  ): void => {
    addCounts.run(projectId, r.release, r.environment, r.hour, sessions, ...v)
  }

  const writeUpdate = (s: SessionUpdate): void => {
    const old = getSession.get(s.projectId, s.sid)
    const { row, newSessions, moved } = foldSession(old, s)
    if (old === undefined)
      insertSession.run({ ...row, projectId: s.projectId, sid: s.sid, started: s.started })
    else updateSession.run({ ...row, projectId: s.projectId, sid: s.sid })
    if (moved !== null) {
      const v = oneHot(moved.to)
      if (moved.from !== null) v[moved.from] = -1
      count(s.projectId, row, newSessions, v)
    }
    if (row.did !== null)
      upsertUser.run(s.projectId, row.release, row.environment, row.hour, row.did, row.category)
  }

  const writeBucket = (b: SessionBucket): void => {
    const v = SESSION_CATEGORIES.map((c) => b.counts[c]) as Vector
    const total = v.reduce((a, n) => a + n, 0)
    if (total === 0) return
    const hour = hourOf(b.started)
    count(b.projectId, { ...b, hour }, total, v)
    if (b.did !== null) {
      const worst = v.reduce((w, n, i) => (n > 0 ? i : w), 0)
      upsertUser.run(b.projectId, b.release, b.environment, hour, b.did, worst)
    }
  }

  return (unit) => {
    for (const s of unit.sessions ?? []) writeUpdate(s)
    for (const b of unit.sessionBuckets ?? []) writeBucket(b)
  }
}

const sums = SESSION_CATEGORIES.map((c) => `SUM(${c}) AS ${c}`).join(', ')
const RANGE =
  'project_id = @projectId AND hour >= @since AND hour < @until AND (@env IS NULL OR environment = @env)'

/** Release-health reads on SQLite: sums of the hourly rollups, distinct users per range. */
export function sqliteReleaseHealth(db: Database.Database): ReleaseHealthStore {
  type Params = { projectId: number; since: number; until: number; env: string | null }
  type ReleaseParams = Params & { release: string }
  const releases = db.prepare<Params, CountRow & { release: string; first: number; last: number }>(
    `SELECT release, MIN(hour) AS first, MAX(hour) AS last, SUM(sessions) AS sessions, ${sums}
     FROM health_hours WHERE ${RANGE} GROUP BY release ORDER BY last DESC, release`,
  )
  const environments = db.prepare<Params, { release: string; environment: string }>(
    `SELECT DISTINCT release, environment FROM health_hours WHERE ${RANGE} ORDER BY environment`,
  )
  const releaseUsers = db.prepare<Params, { release: string; category: number; n: number }>(
    `SELECT release, category, COUNT(*) AS n FROM (
       SELECT release, did, MAX(category) AS category FROM health_users WHERE ${RANGE} GROUP BY release, did
     ) GROUP BY release, category`,
  )
  const hours = db.prepare<ReleaseParams, CountRow & { hour: number }>(
    `SELECT hour, SUM(sessions) AS sessions, ${sums} FROM health_hours
     WHERE ${RANGE} AND release = @release GROUP BY hour ORDER BY hour`,
  )
  const hourUsers = db.prepare<ReleaseParams, { hour: number; category: number; n: number }>(
    `SELECT hour, category, COUNT(*) AS n FROM (
       SELECT hour, did, MAX(category) AS category FROM health_users
       WHERE ${RANGE} AND release = @release GROUP BY hour, did
     ) GROUP BY hour, category`,
  )
  const totalUsers = db.prepare<ReleaseParams, { category: number; n: number }>(
    `SELECT category, COUNT(*) AS n FROM (
       SELECT did, MAX(category) AS category FROM health_users
       WHERE ${RANGE} AND release = @release GROUP BY did
     ) GROUP BY category`,
  )
  const known = db.prepare<[number, string], { one: number }>(
    'SELECT 1 AS one FROM health_hours WHERE project_id = ? AND release = ? LIMIT 1',
  )
  const params = (projectId: number, r: HealthRange): Params => ({
    projectId,
    since: r.since,
    until: r.until,
    env: r.environment ?? null,
  })

  return {
    listReleaseHealth: async (projectId, range) => {
      const p = params(projectId, range)
      const envs = new Map<string, string[]>()
      for (const e of environments.all(p)) {
        const list = envs.get(e.release) ?? []
        list.push(e.environment)
        envs.set(e.release, list)
      }
      const users = new Map<string, HealthCounts>()
      const out = releases.all(p).map((r) => {
        const counts = emptyCounts()
        addSessions(counts, r)
        users.set(r.release, counts)
        return {
          release: r.release,
          firstSeen: r.first,
          lastSeen: r.last,
          environments: envs.get(r.release) ?? [],
          counts,
        }
      })
      for (const u of releaseUsers.all(p)) {
        const counts = users.get(u.release)
        if (counts !== undefined) addUsers(counts, u.category, u.n)
      }
      return out
    },

    releaseHealthSeries: async (projectId, release, range) => {
      if (known.get(projectId, release) === undefined) return undefined
      const p = { ...params(projectId, range), release }
      const byHour = new Map<number, HealthCounts>()
      const totals = emptyCounts()
      for (const h of hours.all(p)) {
        const counts = emptyCounts()
        addSessions(counts, h)
        addSessions(totals, h)
        byHour.set(h.hour, counts)
      }
      for (const u of hourUsers.all(p)) {
        const counts = byHour.get(u.hour)
        if (counts !== undefined) addUsers(counts, u.category, u.n)
      }
      for (const u of totalUsers.all(p)) addUsers(totals, u.category, u.n)
      const series = [...byHour.entries()].map(([hour, counts]) => ({ hour, counts }))
      return { totals, series }
    },
  }
}
