import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { ApiError } from '../errors.ts'
import {
  type HealthCounts,
  type HealthRange,
  SESSION_CATEGORIES,
} from '../store/release-health-types.ts'
import type { Store } from '../store/types.ts'
import { parseInput, pathId } from './validate.ts'

const HOUR = 3_600_000
const DAY = 24 * HOUR
/** Longest range of the hourly series (as the outcome series: 93 days of buckets). */
const MAX_BUCKETS = 93 * 24

/** ISO 8601 or Unix seconds (ms when > 1e11). */
const Instant = z
  .string()
  .max(40)
  .transform((s, ctx) => {
    const n = /^\d+(\.\d+)?$/.test(s) ? Number(s) : Number.NaN
    const ms = Number.isFinite(n) ? (n > 1e11 ? n : n * 1000) : Date.parse(s)
    if (!Number.isFinite(ms)) {
      ctx.addIssue({ code: 'custom', message: 'expected an ISO 8601 time or Unix seconds' })
      return z.NEVER
    }
    return ms
  })

/** Query of the release-health endpoints: a range of whole hours and an environment. */
export const HealthQuery = z.object({
  since: Instant.optional(),
  until: Instant.optional(),
  environment: z.string().max(64).optional(),
})

const iso = (ms: number): string => new Date(ms).toISOString()

/** A rate in percent (100 = nothing crashed), or null without sessions. */
const crashFree = (crashed: number, total: number): number | null =>
  total === 0 ? null : (100 * (total - crashed)) / total

/**
 * Health figures as the API shows them: sessions and distinct users per exclusive category
 * (healthy, errored, unhandled, abnormal, crashed) and the crash-free rates in percent.
 */
export function healthJson(c: HealthCounts): Record<string, number | null> {
  const out: Record<string, number | null> = {
    sessions: c.sessions.total,
    users: c.users.total,
    crash_free_sessions: crashFree(c.sessions.crashed, c.sessions.total),
    crash_free_users: crashFree(c.users.crashed, c.users.total),
  }
  for (const k of SESSION_CATEGORIES) {
    out[`sessions_${k}`] = c.sessions[k]
    out[`users_${k}`] = c.users[k]
  }
  return out
}

/** Resolves the range of a health query; `days` is the default length. */
function rangeOf(query: unknown, days: number): HealthRange {
  const q = parseInput(HealthQuery, query, 'query')
  const until = Math.ceil((q.until ?? Date.now()) / HOUR) * HOUR
  const since = Math.floor((q.since ?? until - days * DAY) / HOUR) * HOUR
  if (since >= until) throw new ApiError('bad_request', 'since must be before until')
  return { since, until, environment: q.environment }
}

/**
 * Release health: `GET /api/0/projects/{id}/releases/` (releases with sessions in the range,
 * default the last 90 days, newest first) and `.../releases/{release}/health/` (totals and an
 * hourly series for the crash-free chart, default the last 14 days).
 */
export async function releaseRoutes(app: FastifyInstance, deps: { store: Store }): Promise<void> {
  const { store } = deps
  const projectOf = async (params: unknown): Promise<number> => {
    const projectId = pathId(params, 'projectId')
    if ((await store.getProject(projectId)) === undefined)
      throw new ApiError('not_found', 'no such project')
    return projectId
  }

  app.get('/api/0/projects/:projectId/releases/', async (req) => {
    const projectId = await projectOf(req.params)
    const range = rangeOf(req.query, 90)
    const releases = await store.listReleaseHealth(projectId, range)
    return releases.map((r) => ({
      version: r.release,
      first_seen: iso(r.firstSeen),
      last_seen: iso(r.lastSeen),
      environments: r.environments.map((e) => (e === '' ? null : e)),
      health: healthJson(r.counts),
    }))
  })

  app.get('/api/0/projects/:projectId/releases/:release/health/', async (req) => {
    const projectId = await projectOf(req.params)
    const release = (req.params as { release?: string }).release ?? ''
    if (release === '' || release.length > 250) throw new ApiError('not_found', 'no such release')
    const range = rangeOf(req.query, 14)
    const count = (range.until - range.since) / HOUR
    if (count > MAX_BUCKETS) {
      throw new ApiError('bad_request', `range too long: at most ${MAX_BUCKETS} hourly buckets`)
    }
    const found = await store.releaseHealthSeries(projectId, release, range)
    if (found === undefined) throw new ApiError('not_found', 'no sessions for this release')
    const byHour = new Map(found.series.map((p) => [p.hour, p.counts]))
    const empty: HealthCounts = {
      sessions: { total: 0, healthy: 0, errored: 0, unhandled: 0, abnormal: 0, crashed: 0 },
      users: { total: 0, healthy: 0, errored: 0, unhandled: 0, abnormal: 0, crashed: 0 },
    }
    return {
      version: release,
      since: iso(range.since),
      until: iso(range.until),
      environment: range.environment ?? null,
      interval: '1h',
      totals: healthJson(found.totals),
      series: Array.from({ length: count }, (_, i) => {
        const hour = range.since + i * HOUR
        return { time: iso(hour), ...healthJson(byHour.get(hour) ?? empty) }
      }),
    }
  })
}
