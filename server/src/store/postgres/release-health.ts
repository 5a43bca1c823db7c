import type pg from 'pg'
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
import { all, type Db, first, named, run } from './db.ts'

const HOUR = 3_600_000
const hourOf = (ms: number): number => Math.floor(ms / HOUR) * HOUR

/** Per-category deltas in {@link SESSION_CATEGORIES} order. */
type Vector = [number, number, number, number, number]
const zero = (): Vector => [0, 0, 0, 0, 0]
const oneHot = (rank: number): Vector => {
  const v = zero()
  v[rank] = 1
  return v
}

const cols = SESSION_CATEGORIES.join(', ')
const ADD_COUNTS = `INSERT INTO health_hours (project_id, release, environment, hour, sessions, ${cols})
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
  ON CONFLICT (project_id, release, environment, hour) DO UPDATE SET
    sessions = health_hours.sessions + excluded.sessions,
    ${SESSION_CATEGORIES.map((c) => `${c} = health_hours.${c} + excluded.${c}`).join(', ')}`
// The user's worst category of the hour: GREATEST, the one rule session-folding.ts states.
const UPSERT_USER = `INSERT INTO health_users (project_id, release, environment, hour, did, category)
  VALUES ($1, $2, $3, $4, $5, $6)
  ON CONFLICT (project_id, release, environment, hour, did)
  DO UPDATE SET category = GREATEST(health_users.category, excluded.category)`

/**
 * The release-health part of the ingest transaction on PostgreSQL: the session is read
 * `FOR UPDATE` (two nodes folding one session serialise on its row), folded by
 * session-folding.ts, and the hourly rollups are incremented by upsert.
 */
export function pgHealthWriter(c: Db): (unit: WriteUnit) => Promise<void> {
  const count = (
    projectId: number,
    r: { release: string; environment: string; hour: number },
    sessions: number,
    v: Vector,
  ) => run(c, ADD_COUNTS, [projectId, r.release, r.environment, r.hour, sessions, ...v])

  const writeUpdate = async (s: SessionUpdate): Promise<void> => {
    const old = await first<StoredSession>(
      c,
      `SELECT release, environment, hour, did, category, status, errors, updated
       FROM health_sessions WHERE project_id = $1 AND sid = $2 FOR UPDATE`,
      [s.projectId, s.sid],
    )
    const { row, newSessions, moved } = foldSession(old, s)
    if (old === undefined)
      await run(
        c,
        ...named(
          `INSERT INTO health_sessions (project_id, sid, release, environment, hour, did, category, status, errors, started, updated)
           VALUES (@projectId, @sid, @release, @environment, @hour, @did, @category, @status, @errors, @started, @updated)`,
          { ...row, projectId: s.projectId, sid: s.sid, started: s.started },
        ),
      )
    else
      await run(
        c,
        ...named(
          `UPDATE health_sessions SET category = @category, errors = @errors, status = @status,
             did = @did, updated = @updated
           WHERE project_id = @projectId AND sid = @sid`,
          { ...row, projectId: s.projectId, sid: s.sid },
        ),
      )
    if (moved !== null) {
      const v = oneHot(moved.to)
      if (moved.from !== null) v[moved.from] = -1
      await count(s.projectId, row, newSessions, v)
    }
    if (row.did !== null)
      await run(c, UPSERT_USER, [
        s.projectId,
        row.release,
        row.environment,
        row.hour,
        row.did,
        row.category,
      ])
  }

  const writeBucket = async (b: SessionBucket): Promise<void> => {
    const v = SESSION_CATEGORIES.map((k) => b.counts[k]) as Vector
    const total = v.reduce((a, n) => a + n, 0)
    if (total === 0) return
    const hour = hourOf(b.started)
    await count(b.projectId, { ...b, hour }, total, v)
    if (b.did !== null) {
      const worst = v.reduce((w, n, i) => (n > 0 ? i : w), 0)
      await run(c, UPSERT_USER, [b.projectId, b.release, b.environment, hour, b.did, worst])
    }
  }

  return async (unit) => {
    for (const s of unit.sessions ?? []) await writeUpdate(s)
    for (const b of unit.sessionBuckets ?? []) await writeBucket(b)
  }
}

const sums = SESSION_CATEGORIES.map((c) => `SUM(${c}) AS ${c}`).join(', ')
const RANGE =
  'project_id = @projectId AND hour >= @since AND hour < @until AND (@env::text IS NULL OR environment = @env::text)'

/** Release-health reads on PostgreSQL: sums of the hourly rollups, distinct users per range. */
export function pgReleaseHealth(pool: pg.Pool): ReleaseHealthStore {
  type Params = { projectId: number; since: number; until: number; env: string | null }
  const params = (projectId: number, r: HealthRange): Params => ({
    projectId,
    since: r.since,
    until: r.until,
    env: r.environment ?? null,
  })
  const q = <T>(sql: string, p: Record<string, unknown>) => all<T>(pool, ...named(sql, p))

  return {
    listReleaseHealth: async (projectId, range) => {
      const p = params(projectId, range)
      const envs = new Map<string, string[]>()
      for (const e of await q<{ release: string; environment: string }>(
        `SELECT DISTINCT release, environment FROM health_hours WHERE ${RANGE} ORDER BY environment`,
        p,
      )) {
        const list = envs.get(e.release) ?? []
        list.push(e.environment)
        envs.set(e.release, list)
      }
      const users = new Map<string, HealthCounts>()
      const rows = await q<CountRow & { release: string; first: number; last: number }>(
        `SELECT release, MIN(hour) AS first, MAX(hour) AS last, SUM(sessions) AS sessions, ${sums}
         FROM health_hours WHERE ${RANGE} GROUP BY release ORDER BY last DESC, release`,
        p,
      )
      const out = rows.map((r) => {
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
      for (const u of await q<{ release: string; category: number; n: number }>(
        `SELECT release, category, COUNT(*) AS n FROM (
           SELECT release, did, MAX(category) AS category FROM health_users WHERE ${RANGE} GROUP BY release, did
         ) worst GROUP BY release, category`,
        p,
      )) {
        const counts = users.get(u.release)
        if (counts !== undefined) addUsers(counts, u.category, u.n)
      }
      return out
    },

    releaseHealthSeries: async (projectId, release, range) => {
      const known = await first(
        pool,
        'SELECT 1 AS one FROM health_hours WHERE project_id = $1 AND release = $2 LIMIT 1',
        [projectId, release],
      )
      if (known === undefined) return undefined
      const p = { ...params(projectId, range), release }
      const byHour = new Map<number, HealthCounts>()
      const totals = emptyCounts()
      for (const h of await q<CountRow & { hour: number }>(
        `SELECT hour, SUM(sessions) AS sessions, ${sums} FROM health_hours
         WHERE ${RANGE} AND release = @release GROUP BY hour ORDER BY hour`,
        p,
      )) {
        const counts = emptyCounts()
        addSessions(counts, h)
        addSessions(totals, h)
        byHour.set(h.hour, counts)
      }
      for (const u of await q<{ hour: number; category: number; n: number }>(
        `SELECT hour, category, COUNT(*) AS n FROM (
           SELECT hour, did, MAX(category) AS category FROM health_users
           WHERE ${RANGE} AND release = @release GROUP BY hour, did
         ) worst GROUP BY hour, category`,
        p,
      )) {
        const counts = byHour.get(u.hour)
        if (counts !== undefined) addUsers(counts, u.category, u.n)
      }
      for (const u of await q<{ category: number; n: number }>(
        `SELECT category, COUNT(*) AS n FROM (
           SELECT did, MAX(category) AS category FROM health_users
           WHERE ${RANGE} AND release = @release GROUP BY did
         ) worst GROUP BY category`,
        p,
      ))
        addUsers(totals, u.category, u.n)
      const series = [...byHour.entries()].map(([hour, counts]) => ({ hour, counts }))
      return { totals, series }
    },
  }
}
