import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { CronClock } from '../crons/clock.ts'
import { scheduleJson } from '../crons/schedule.ts'
import { ApiError } from '../errors.ts'
import type {
  CheckInRecord,
  Monitor,
  MonitorEnvironment,
  MonitorEnvStatus,
} from '../store/monitor-types.ts'
import type { Store } from '../store/types.ts'
import { Cursor } from './cursor.ts'
import { parseInput, pathId, pathProject } from './validate.ts'

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
export const CheckInQuery = z.object({
  environment: z.string().max(64).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  cursor: Cursor.optional(),
})

/** Query of the test-only clock route: the time to process (ISO 8601 or Unix ms/seconds). */
const TickQuery = z.object({ now: z.string().max(40).optional() })

function instant(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined
  const n = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : Number.NaN
  const ms = Number.isFinite(n) ? (n > 1e11 ? n : n * 1000) : Date.parse(raw)
  if (!Number.isFinite(ms)) throw new ApiError('bad_request', 'now: expected an ISO 8601 time')
  return ms
}

/**
 * Cron monitor routes: `GET /api/0/projects/{id}/monitors/` (schedule, time zone, status and
 * next expected run per monitor), `.../monitors/{slug}/` and `.../monitors/{slug}/checkins/`
 * (the run timeline, newest first: ok, error, in_progress, missed, timeout). With
 * `INGEST_TEST_CLOCK=1` also `POST /api/0/internal/clock/tick/?now=` (admins only): runs the
 * cron clock as if it were `now`, so tests need not wait for minutes.
 */
export async function monitorRoutes(app: FastifyInstance, deps: { store: Store }): Promise<void> {
  const { store } = deps
  const findMonitor = async (params: unknown): Promise<Monitor> => {
    const projectId = pathId(params, 'projectId')
    const slug = (params as { slug?: string }).slug ?? ''
    const m = await store.getMonitor(projectId, slug)
    if (m === undefined) throw new ApiError('not_found', 'no such monitor')
    return m
  }

  app.get('/api/0/projects/:projectId/monitors/', async (req) => {
    const projectId = (await pathProject(store, req.params)).id
    return (await store.listMonitors(projectId)).map(monitorJson)
  })

  app.get('/api/0/projects/:projectId/monitors/:slug/', async (req) =>
    monitorJson(await findMonitor(req.params)),
  )

  app.get('/api/0/projects/:projectId/monitors/:slug/checkins/', async (req, reply) => {
    const m = await findMonitor(req.params)
    const q = parseInput(CheckInQuery, req.query, 'query')
    const page = await store.listCheckIns(
      m.id,
      { environment: q.environment },
      { limit: q.limit, cursor: q.cursor },
    )
    if (page.next !== undefined) reply.header('x-next-cursor', page.next)
    return page.checkIns.map(checkInJson)
  })

  app.get('/api/0/internal/clock/', async (req) => {
    if (req.principal?.isAdmin !== true) throw new ApiError('forbidden', 'admins only')
    const lease = await store.getLease(CronClock.LEASE)
    return {
      node: app.cronClock.holder,
      holder: lease?.holder ?? null,
      lease_expires: iso(lease?.expiresAt ?? null),
      last_tick: iso(lease?.lastTick ?? null),
      test_clock: app.services.config.testClock,
    }
  })

  if (!app.services.config.testClock) return
  app.post('/api/0/internal/clock/tick/', async (req) => {
    if (req.principal?.isAdmin !== true) throw new ApiError('forbidden', 'admins only')
    const { now } = parseInput(TickQuery, req.query, 'query')
    const r = await app.cronClock.tick(instant(now))
    return { held: r.held, now: iso(r.now), recorded: r.recorded, events: r.events }
  })
}
