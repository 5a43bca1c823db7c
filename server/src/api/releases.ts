import { z } from 'zod'
import { ApiError } from '../errors.ts'
import { onProject } from '../http/route-access.ts'
import type { ApiScope } from '../http-kit/openapi.ts'
import {
  errorResponses,
  HealthJson,
  MAX_PATH_PARAM,
  PathId,
  ProjectParams,
} from '../http-kit/schemas.ts'
import { pathProject } from '../http-kit/validate.ts'
import {
  type HealthCounts,
  type HealthRange,
  SESSION_CATEGORIES,
} from '../store/release-health-types.ts'
import type { Store } from '../store/types.ts'
import { Cursor } from './cursor.ts'
import { HOUR, hourBuckets, hourRange, iso, RangeQuery } from './time-range.ts'

const DAY = 24 * HOUR

/** Query of the release-health endpoints: a range of whole hours and an environment. */
export const HealthQuery = z
  .object({
    ...RangeQuery,
    environment: z.string().max(64).optional(),
  })
  .describe('query')

/** Query of the release list: the health query and a page (`x-next-cursor` continues it). */
const ReleaseListQuery = z
  .object({
    ...RangeQuery,
    environment: z.string().max(64).optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    cursor: Cursor.optional(),
  })
  .describe('query')

// Over `MAX_PATH_PARAM` characters the router answers 414 before any schema (documented).
const ReleaseParams = z.object({
  projectId: PathId,
  release: z.string().min(1).max(MAX_PATH_PARAM),
})

const ReleaseList = z.array(
  z.object({
    version: z.string(),
    first_seen: z.string(),
    last_seen: z.string(),
    environments: z.array(z.string().nullable()),
    health: HealthJson,
  }),
)

const ReleaseSeries = z.object({
  version: z.string(),
  since: z.string(),
  until: z.string(),
  environment: z.string().nullable(),
  interval: z.literal('1h'),
  totals: HealthJson,
  series: z.array(z.record(z.string(), z.union([z.string(), z.number(), z.null()]))),
})

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
function rangeOf(q: z.output<typeof HealthQuery>, days: number): HealthRange {
  return { ...hourRange(q, days * DAY), environment: q.environment }
}

/**
 * Release health: `GET /api/0/projects/{id}/releases/` (releases with sessions in the range,
 * default the last 90 days, newest first) and `.../releases/{release}/health/` (totals and an
 * hourly series for the crash-free chart, default the last 14 days).
 */
export async function releaseRoutes(app: ApiScope, deps: { store: Store }): Promise<void> {
  const { store } = deps
  app.get(
    '/api/0/projects/:projectId/releases/',
    {
      config: { access: onProject('project:read') },
      schema: {
        summary:
          'Releases with sessions in [since, until) (whole hours, default the last 90 days), newest first, with their health; filter environment; cursor paging (limit, default 100, at most 1000; x-next-cursor)',
        params: ProjectParams,
        querystring: ReleaseListQuery,
        response: { 200: ReleaseList, ...errorResponses },
      },
    },
    async (req, reply) => {
      const projectId = (await pathProject(store, req.params.projectId)).id
      const range = rangeOf(req.query, 90)
      const { limit, cursor } = req.query
      const { releases, next } = await store.listReleaseHealth(projectId, range, { limit, cursor })
      if (next !== undefined) reply.header('x-next-cursor', next)
      return releases.map((r) => ({
        version: r.release,
        first_seen: iso(r.firstSeen),
        last_seen: iso(r.lastSeen),
        environments: r.environments.map((e) => (e === '' ? null : e)),
        health: healthJson(r.counts),
      }))
    },
  )

  app.get(
    '/api/0/projects/:projectId/releases/:release/health/',
    {
      config: { access: onProject('project:read') },
      schema: {
        summary:
          'Health totals and an hourly series of one release for the crash-free chart (default the last 14 days, at most 93)',
        params: ReleaseParams,
        querystring: HealthQuery,
        response: { 200: ReleaseSeries, ...errorResponses },
      },
    },
    async (req) => {
      const projectId = (await pathProject(store, req.params.projectId)).id
      const release = req.params.release
      const range = rangeOf(req.query, 14)
      const count = hourBuckets(range)
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
        interval: '1h' as const,
        totals: healthJson(found.totals),
        series: Array.from({ length: count }, (_, i) => {
          const hour = range.since + i * HOUR
          return { time: iso(hour), ...healthJson(byHour.get(hour) ?? empty) }
        }),
      }
    },
  )
}
