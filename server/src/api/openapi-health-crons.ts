import type { z } from 'zod'
import { CheckInQuery } from './monitors.ts'
import { HealthQuery } from './releases.ts'

const ok = (description: string) => ({ description, content: { 'application/json': {} } })
const query = (schema: z.ZodObject) =>
  Object.keys(schema.shape).map((name) => ({ name, in: 'query', schema: { type: 'string' } }))
const errors = {
  '400': { description: 'Invalid input; body `{"detail": "..."}`' },
  '401': { description: 'Missing or wrong token; body `{"detail": "..."}`' },
  '404': { description: 'No such resource' },
}
const HEALTH =
  '{sessions, sessions_healthy, sessions_errored, sessions_unhandled, sessions_abnormal, sessions_crashed, users, users_…, crash_free_sessions, crash_free_users (percent or null)}'

/** OpenAPI paths of release health and cron monitors (issue 4), merged into openapi.ts. */
export const healthAndCronPaths = {
  '/api/0/projects/{projectId}/releases/': {
    get: {
      summary:
        'Releases with sessions in [since, until) (whole hours, default the last 90 days), newest first, with their health; filter environment',
      parameters: query(HealthQuery),
      responses: {
        '200': ok(`[{version, first_seen, last_seen, environments, health: ${HEALTH}}]`),
        ...errors,
      },
    },
  },
  '/api/0/projects/{projectId}/releases/{release}/health/': {
    get: {
      summary:
        'Health totals and an hourly series of one release for the crash-free chart (default the last 14 days, at most 93)',
      parameters: query(HealthQuery),
      responses: {
        '200': ok(
          '{version, since, until, environment, interval: "1h", totals, series: [{time, …}]}',
        ),
        ...errors,
      },
    },
  },
  '/api/0/projects/{projectId}/monitors/': {
    get: {
      summary:
        'Cron monitors (created by check-ins): schedule, timezone, checkin_margin, max_runtime, status, next_checkin, environments',
      responses: { '200': ok('Monitors'), ...errors },
    },
  },
  '/api/0/projects/{projectId}/monitors/{slug}/': {
    get: { summary: 'One cron monitor', responses: { '200': ok('Monitor'), ...errors } },
  },
  '/api/0/projects/{projectId}/monitors/{slug}/checkins/': {
    get: {
      summary:
        'Runs of a monitor, newest first: ok, error, in_progress, missed, timeout (duration in ms, event_id of failures); cursor paging (x-next-cursor)',
      parameters: query(CheckInQuery),
      responses: {
        '200': ok('[{id, status, environment, date_added, expected_time, duration}]'),
        ...errors,
      },
    },
  },
  '/api/0/internal/clock/': {
    get: {
      summary: 'Admins: which node holds the cron clock lease and the last time it processed',
      responses: { '200': ok('{node, holder, lease_expires, last_tick, test_clock}'), ...errors },
    },
  },
  '/api/0/internal/clock/tick/': {
    post: {
      summary:
        'Admins, only with INGEST_TEST_CLOCK=1: run the cron clock as if it were `now` (ISO 8601 or Unix time) — for tests',
      parameters: [{ name: 'now', in: 'query', schema: { type: 'string' } }],
      responses: { '200': ok('{held, now, recorded, events}'), ...errors },
    },
  },
}
