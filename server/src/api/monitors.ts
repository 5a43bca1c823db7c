import { z } from 'zod'
import type { Config } from '../config.ts'
import { CronClock } from '../crons/clock.ts'
import { ApiError } from '../errors.ts'
import { INSTANCE_ADMIN, onProject } from '../http/route-access.ts'
import type { ApiScope } from '../http-kit/openapi.ts'
import {
  CheckInJson,
  errorResponses,
  MonitorJson,
  PathId,
  ProjectParams,
} from '../http-kit/schemas.ts'
import { pathProject } from '../http-kit/validate.ts'
import { scheduleJson } from '../schedule/schedule.ts'
import type {
  CheckInRecord,
  Monitor,
  MonitorEnvironment,
  MonitorEnvStatus,
} from '../store/monitor-types.ts'
import type { Store } from '../store/types.ts'
import { Cursor } from './cursor.ts'
import { Instant } from './time-range.ts'

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString())

/** A monitor's overall status: a failing environment wins, then ok, then never closed. */
const STATUS_ORDER: MonitorEnvStatus[] = ['error', 'timeout', 'missed', 'ok', 'active']

function overall(envs: MonitorEnvironment[]): MonitorEnvStatus {
  return STATUS_ORDER.find((s) => envs.some((e) => e.status === s)) ?? 'active'
}

const earliest = (values: (number | null)[]): number | null =>
  values.reduce<number | null>((a, v) => (v === null ? a : a === null ? v : Math.min(a, v)), null)
const latest = (values: (number | null)[]): number | null =>
  values.reduce<number | null>((a, v) => (v === null ? a : a === null ? v : Math.max(a, v)), null)

/** A monitor as the API shows it. */
export function monitorJson(m: Monitor) {
  return {
    id: m.id,
    slug: m.slug,
    name: m.slug,
    status: overall(m.environments),
    schedule: scheduleJson(m.schedule),
    timezone: m.timezone,
    checkin_margin: m.checkinMargin,
    max_runtime: m.maxRuntime,
    failure_issue_threshold: m.failureIssueThreshold,
    recovery_threshold: m.recoveryThreshold,
    next_checkin: iso(earliest(m.environments.map((e) => e.nextCheckIn))),
    last_checkin: iso(latest(m.environments.map((e) => e.lastCheckIn))),
    created_at: iso(m.createdAt),
    updated_at: iso(m.updatedAt),
    environments: m.environments.map((e) => ({
      name: e.environment,
      status: e.status,
      last_checkin: iso(e.lastCheckIn),
      next_checkin: iso(e.nextCheckIn),
      next_checkin_latest: iso(e.nextCheckInLatest),
      consecutive_failures: e.failures,
    })),
  }
}

/** One run of the check-in timeline as the API shows it (duration in ms, like Sentry's). */
export const checkInJson = (c: CheckInRecord) => ({
  id: c.checkInId,
  status: c.status,
  environment: c.environment,
  date_added: iso(c.dateAdded),
  date_updated: iso(c.dateUpdated),
  expected_time: iso(c.expectedTime),
  timeout_at: iso(c.timeoutAt),
  duration: c.durationMs,
  release: c.release,
  event_id: c.eventId,
})

/** Query of the check-in timeline. */
export const CheckInQuery = z
  .object({
    environment: z.string().max(64).optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    cursor: Cursor.optional(),
  })
  .describe('query')

/** Query of the test-only clock route: the time to process (ISO 8601 or Unix ms/seconds). */
const TickQuery = z.object({ now: Instant.optional() }).describe('query')

const MonitorParams = z.object({ projectId: PathId, slug: z.string().max(64) })

const ClockJson = z.object({
  node: z.string(),
  holder: z.string().nullable(),
  lease_expires: z.string().nullable(),
  last_tick: z.string().nullable(),
  test_clock: z.boolean(),
})

const TickJson = z.object({
  held: z.boolean(),
  now: z.string().nullable(),
  recorded: z.number().int(),
  events: z.array(z.string()),
})

/**
 * Cron monitor routes: `GET /api/0/projects/{id}/monitors/` (schedule, time zone, status and
 * next expected run per monitor), `.../monitors/{slug}/` and `.../monitors/{slug}/checkins/`
 * (the run timeline, newest first: ok, error, in_progress, missed, timeout). With
 * `INGEST_TEST_CLOCK=1` also `POST /api/0/internal/clock/tick/?now=` (admins only): runs the
 * cron clock as if it were `now`, so tests need not wait for minutes.
 */
export async function monitorRoutes(
  app: ApiScope,
  deps: { store: Store; config: Pick<Config, 'testClock'> },
): Promise<void> {
  const { store } = deps
  const findMonitor = async (params: { projectId: number; slug: string }): Promise<Monitor> => {
    const m = await store.getMonitor(params.projectId, params.slug)
    if (m === undefined) throw new ApiError('not_found', 'no such monitor')
    return m
  }

  app.get(
    '/api/0/projects/:projectId/monitors/',
    {
      config: { access: onProject('project:read') },
      schema: {
        summary:
          'Cron monitors (created by check-ins): schedule, timezone, checkin_margin, max_runtime, status, next_checkin, environments',
        params: ProjectParams,
        response: { 200: z.array(MonitorJson), ...errorResponses },
      },
    },
    async (req) => {
      const projectId = (await pathProject(store, req.params.projectId)).id
      return (await store.listMonitors(projectId)).map(monitorJson)
    },
  )

  app.get(
    '/api/0/projects/:projectId/monitors/:slug/',
    {
      config: { access: onProject('project:read') },
      schema: {
        summary: 'One cron monitor',
        params: MonitorParams,
        response: { 200: MonitorJson, ...errorResponses },
      },
    },
    async (req) => monitorJson(await findMonitor(req.params)),
  )

  app.get(
    '/api/0/projects/:projectId/monitors/:slug/checkins/',
    {
      config: { access: onProject('project:read') },
      schema: {
        summary:
          'Run timeline of a monitor, newest first (ok, error, in_progress, missed, timeout); filter environment; cursor paging (x-next-cursor)',
        params: MonitorParams,
        querystring: CheckInQuery,
        response: { 200: z.array(CheckInJson), ...errorResponses },
      },
    },
    async (req, reply) => {
      const m = await findMonitor(req.params)
      const q = req.query
      const page = await store.listCheckIns(
        m.id,
        { environment: q.environment },
        { limit: q.limit, cursor: q.cursor },
      )
      if (page.next !== undefined) reply.header('x-next-cursor', page.next)
      return page.checkIns.map(checkInJson)
    },
  )

  app.get(
    '/api/0/internal/clock/',
    {
      config: { access: INSTANCE_ADMIN },
      schema: {
        summary: 'State of the cron clock: lease holder and last tick (admins only)',
        response: { 200: ClockJson, ...errorResponses },
      },
    },
    async (req) => {
      if (req.principal?.isAdmin !== true) throw new ApiError('forbidden', 'admins only')
      const lease = await store.getLease(CronClock.LEASE)
      return {
        node: app.cronClock.holder,
        holder: lease?.holder ?? null,
        lease_expires: iso(lease?.expiresAt ?? null),
        last_tick: iso(lease?.lastTick ?? null),
        test_clock: deps.config.testClock,
      }
    },
  )

  // Registered only with the test clock on, so the generated document lists it only then.
  if (!deps.config.testClock) return
  app.post(
    '/api/0/internal/clock/tick/',
    {
      config: { access: INSTANCE_ADMIN },
      schema: {
        summary: 'Run the cron clock as if it were `now` (INGEST_TEST_CLOCK=1 only; admins only)',
        querystring: TickQuery,
        response: { 200: TickJson, ...errorResponses },
      },
    },
    async (req) => {
      if (req.principal?.isAdmin !== true) throw new ApiError('forbidden', 'admins only')
      const r = await app.cronClock.tick(req.query.now)
      return { held: r.held, now: iso(r.now), recorded: r.recorded, events: r.events }
    },
  )
}
