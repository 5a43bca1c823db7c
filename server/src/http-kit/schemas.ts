import { z } from 'zod'

/**
 * The shapes the management API answers with, declared once: routes pass them as `response`
 * schemas, so the serializer checks every answer against them and the OpenAPI document
 * (`openapi.ts`) is generated from the same objects.
 */

/** The body of every error answer (`errors.ts`): `detail`, and `causes` for invalid input. */
export const ErrorBody = z
  .object({
    detail: z.string(),
    causes: z.array(z.string()).optional(),
    position: z
      .number()
      .int()
      .optional()
      .describe('a search query that does not parse: 0-based offset of what could not be read'),
    token: z
      .string()
      .optional()
      .describe('a search query that does not parse: the text that could not be read'),
  })
  .meta({ id: 'Error' })

const isoTime = z.string().describe('ISO 8601 time (UTC)')
const isoOrNull = isoTime.nullable()

/**
 * A numeric path id. Anything else is answered 404 (no such resource), as Sentry's API does,
 * not 400: the id names a resource, and a malformed name names none.
 */
export const PathId = z
  .string()
  .regex(/^\d{1,15}$/)
  .transform(Number)

/** `{projectId}` alone. */
export const ProjectParams = z.object({ projectId: PathId })

/**
 * The longest path parameter the router takes (Fastify's `maxParamLength`; 414 above it): the
 * longest name an event stores for its release (256 characters), so a release any event or
 * session named can be read back by it.
 */
export const MAX_PATH_PARAM = 256

/** The error answers every management route can give (the principal hook runs first). */
export const errorResponses = {
  400: ErrorBody.describe('Invalid input'),
  401: ErrorBody.describe('Missing or wrong token'),
  403: ErrorBody.describe('Not allowed'),
  404: ErrorBody.describe('No such resource'),
  414: ErrorBody.describe(`A path parameter over ${MAX_PATH_PARAM} characters`),
} as const

/** The extra answers of a route with a JSON body: wrong media type, body over the limit. */
export const bodyErrorResponses = {
  ...errorResponses,
  413: ErrorBody.describe('Body too large'),
  415: ErrorBody.describe('Not a JSON body'),
} as const

/** An event quota, or null for none. */
export const QuotaJson = z
  .object({ events: z.number().int(), window_seconds: z.number().int() })
  .nullable()
  .meta({ id: 'Quota' })

/** A project (`format.ts` `projectJson`). */
export const ProjectJson = z
  .object({
    id: z.number().int(),
    slug: z.string(),
    name: z.string(),
    dsn: z.string().describe('The default DSN (empty when the project has no key)'),
    created_at: isoTime,
    team_id: z.number().int().describe('The team that owns the project'),
  })
  .meta({ id: 'Project' })

/** A project with its quota, as the single-project routes answer. */
export const ProjectDetailJson = ProjectJson.extend({ quota: QuotaJson }).meta({
  id: 'ProjectDetail',
})

/** A DSN key (`format.ts` `keyJson`). */
export const KeyJson = z
  .object({
    id: z.number().int(),
    label: z.string(),
    component: z.string().nullable(),
    public_key: z.string(),
    dsn: z.string(),
    created_at: isoTime,
    revoked: z.boolean(),
  })
  .meta({ id: 'Key' })

/** An issue (`format.ts` `issueJson`). */
export const IssueJson = z
  .object({
    id: z.number().int(),
    project_id: z.number().int(),
    title: z.string(),
    culprit: z.string(),
    level: z.string(),
    status: z.enum(['unresolved', 'resolved', 'ignored']),
    count: z.number().int(),
    user_count: z.number().int().describe('distinct users of its events (the user tag)'),
    first_seen: isoTime,
    last_seen: isoTime,
    metadata: z.object({
      type: z.string().nullable(),
      value: z.string().nullable(),
      title: z.string(),
    }),
    grouping_version: z.string(),
    for_review: z.boolean(),
    ignore_until: isoOrNull,
    ignore_count: z.number().int().nullable(),
  })
  .meta({ id: 'Issue' })

/** A stored event: the normalised payload plus where it was filed (`format.ts` `eventJson`). */
export const EventJson = z
  .looseObject({
    event_id: z.string(),
    issue_id: z.number().int(),
    project_id: z.number().int(),
    component: z.string().nullable(),
    received: isoTime,
  })
  .meta({ id: 'Event' })

/** Health figures of a release (`releases.ts` `healthJson`): counts and crash-free percent. */
export const HealthJson = z
  .record(z.string(), z.number().nullable())
  .describe(
    'sessions, users, sessions_<category>, users_<category> (healthy, errored, unhandled, abnormal, crashed), crash_free_sessions, crash_free_users (percent, null without sessions)',
  )
  .meta({ id: 'Health' })

const schedule = z.object({
  type: z.enum(['crontab', 'interval']),
  value: z.union([z.string(), z.number()]),
  unit: z.string().optional(),
})
const monitorStatus = z.enum(['error', 'timeout', 'missed', 'ok', 'active'])

/** A cron monitor (`monitors.ts` `monitorJson`). */
export const MonitorJson = z
  .object({
    id: z.number().int(),
    slug: z.string(),
    name: z.string(),
    status: monitorStatus,
    schedule,
    timezone: z.string(),
    checkin_margin: z.number(),
    max_runtime: z.number(),
    failure_issue_threshold: z.number(),
    recovery_threshold: z.number(),
    next_checkin: isoOrNull,
    last_checkin: isoOrNull,
    created_at: isoOrNull,
    updated_at: isoOrNull,
    environments: z.array(
      z.object({
        name: z.string(),
        status: monitorStatus,
        last_checkin: isoOrNull,
        next_checkin: isoOrNull,
        next_checkin_latest: isoOrNull,
        consecutive_failures: z.number().int(),
      }),
    ),
  })
  .meta({ id: 'Monitor' })

/** One run of a monitor's timeline (`monitors.ts` `checkInJson`); duration in ms. */
export const CheckInJson = z
  .object({
    id: z.string(),
    status: z.string(),
    environment: z.string(),
    date_added: isoOrNull,
    date_updated: isoOrNull,
    expected_time: isoOrNull,
    timeout_at: isoOrNull,
    duration: z.number().nullable(),
    release: z.string().nullable(),
    event_id: z.string().nullable(),
  })
  .meta({ id: 'CheckIn' })

const channel = z.union([
  z.object({ type: z.literal('webhook'), url: z.string(), format: z.enum(['json', 'slack']) }),
  z.object({ type: z.literal('email'), to: z.array(z.string()) }),
])

/** An alert rule (`alerts/rules.ts` `ruleJson`). */
export const AlertRuleJson = z
  .object({
    id: z.number().int(),
    project_id: z.number().int(),
    name: z.string(),
    conditions: z.array(
      z.object({
        type: z.enum(['new_issue', 'regression', 'frequency']),
        threshold: z.number().int().optional(),
        window_minutes: z.number().int().optional(),
      }),
    ),
    channel,
    created_at: isoTime,
  })
  .meta({ id: 'AlertRule' })

/** A delivery-log entry (`alerts/deliveries.ts` `deliveryJson`). */
export const DeliveryJson = z
  .object({
    id: z.number().int(),
    rule: z.object({ id: z.number().int(), name: z.string() }),
    issue_id: z.number().int(),
    event_id: z.string().nullable(),
    trigger: z.enum(['new_issue', 'regression', 'frequency']),
    channel: z.enum(['webhook', 'email']),
    target: z.string(),
    status: z.enum(['pending', 'sent', 'failed']),
    attempts: z.number().int(),
    last_error: z.string().nullable(),
    next_attempt_at: isoOrNull,
    created_at: isoOrNull,
    updated_at: isoOrNull,
    sent_at: isoOrNull,
  })
  .meta({ id: 'AlertDelivery' })
