/**
 * Cron monitor schedules: validating the `monitor_config` a check-in carries and computing the
 * next expected run, in the monitor's time zone (daylight-saving changes included), the way
 * Sentry's monitor consumer does (protocol.md §9 step 5).
 */
import { CronExpressionParser } from 'cron-parser'
import { DateTime, IANAZone } from 'luxon'
import { z } from 'zod'

/** Interval units Sentry accepts (`second` is listed by Python's types but rejected). */
export const INTERVAL_UNITS = ['year', 'month', 'week', 'day', 'hour', 'minute'] as const
/** One interval unit. */
export type IntervalUnit = (typeof INTERVAL_UNITS)[number]

/** A monitor's schedule: a 5-field cron expression, or every N units. */
export type Schedule =
  | { type: 'crontab'; value: string }
  | { type: 'interval'; value: number; unit: IntervalUnit }

/** A parsed `monitor_config`; absent keys leave an existing monitor's value unchanged. */
export interface MonitorConfig {
  schedule: Schedule
  timezone?: string
  /** Minutes late before an expected run counts as missed. */
  checkinMargin?: number
  /** Minutes an open run may last before it counts as overrunning. */
  maxRuntime?: number
  failureIssueThreshold?: number
  recoveryThreshold?: number
}

/** Defaults for a new monitor (Sentry's: margin 1 min, max runtime 30 min, thresholds 1). */
export const MONITOR_DEFAULTS = {
  timezone: 'UTC',
  checkinMargin: 1,
  maxRuntime: 30,
  failureIssueThreshold: 1,
  recoveryThreshold: 1,
} as const

/** Sentry's hard cap for margins and runtimes: 28 days in minutes. */
export const MAX_MINUTES = 40_320

/** Longest minutes in one unit (a leap year, a 31-day month), to bound an interval. */
const UNIT_MINUTES: Record<IntervalUnit, number> = {
  year: 366 * 1440,
  month: 31 * 1440,
  week: 7 * 1440,
  day: 1440,
  hour: 60,
  minute: 1,
}

/**
 * Longest interval schedule, minutes: 1000 years. The protocol only says "positive int", but
 * the next expected run must stay a date (luxon gives NaN past about 275,000 years, which
 * PostgreSQL's bigint column refuses: the check-in answered 503) and within the 9999-12-31 the
 * rest of the server keeps timestamps to.
 */
const MAX_INTERVAL = 1000 * UNIT_MINUTES.year

const NICKNAMES = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@hourly'])

/** Checks a cron expression: five fields (or a nickname) that cron-parser can evaluate. */
export function cronProblem(expression: string): string | undefined {
  const expr = expression.trim()
  if (NICKNAMES.has(expr.toLowerCase())) return undefined
  const fields = expr.split(/\s+/)
  if (fields.length !== 5) return `a crontab schedule has 5 fields, got ${fields.length}`
  try {
    CronExpressionParser.parse(expr, { tz: 'UTC' }).next()
    return undefined
  } catch (err) {
    return `invalid crontab schedule: ${err instanceof Error ? err.message : String(err)}`
  }
}

const nullish = <T extends z.ZodType>(schema: T) =>
  schema.nullish().transform((v) => v ?? undefined)
const minutes = (min: number) => nullish(z.number().int().min(min).max(MAX_MINUTES))
const threshold = nullish(z.number().int().min(1).max(720))
const intervalValue = z.union([
  z.number().int().positive(),
  z
    .string()
    .regex(/^\d{1,9}$/)
    .transform(Number)
    .pipe(z.number().int().positive()),
])

const crontab = z.object({ type: z.literal('crontab'), value: z.string().min(1).max(200) })
const interval = z.object({
  type: z.literal('interval'),
  value: intervalValue,
  unit: z.enum(INTERVAL_UNITS),
})

const configSchema = z.looseObject({
  // The SDK shape `{type, value[, unit]}`; Sentry's older API shape (a bare cron string, or
  // `[n, unit]`) is accepted too.
  schedule: z.union([
    z.discriminatedUnion('type', [crontab, interval]),
    z.string().min(1).max(200),
    z.tuple([intervalValue, z.enum(INTERVAL_UNITS)]),
  ]),
  timezone: nullish(z.string().min(1).max(64)),
  checkin_margin: minutes(0),
  max_runtime: minutes(1),
  failure_issue_threshold: threshold,
  recovery_threshold: threshold,
})

/** What validating a `monitor_config` gives: the config, or why it is unusable. */
export type ConfigResult = { ok: true; config: MonitorConfig } | { ok: false; problem: string }

/** Validates a check-in's `monitor_config` (protocol.md §6.4). */
export function parseMonitorConfig(raw: unknown): ConfigResult {
  const r = configSchema.safeParse(raw)
  if (!r.success) {
    const issue = r.error.issues[0]
    const where = issue === undefined ? '' : issue.path.join('.')
    return { ok: false, problem: `invalid monitor_config ${where}: ${issue?.message ?? ''}`.trim() }
  }
  const c = r.data
  const schedule: Schedule =
    typeof c.schedule === 'string'
      ? { type: 'crontab', value: c.schedule }
      : Array.isArray(c.schedule)
        ? { type: 'interval', value: c.schedule[0], unit: c.schedule[1] }
        : c.schedule
  if (schedule.type === 'crontab') {
    schedule.value = schedule.value.trim().replace(/\s+/g, ' ')
    const problem = cronProblem(schedule.value)
    if (problem !== undefined) return { ok: false, problem }
  }
  if (schedule.type === 'interval' && schedule.value * UNIT_MINUTES[schedule.unit] > MAX_INTERVAL)
    return { ok: false, problem: 'an interval schedule is at most 1000 years' }
  const config: MonitorConfig = { schedule }
  if (c.timezone !== undefined) {
    if (!IANAZone.isValidZone(c.timezone))
      return { ok: false, problem: `unknown time zone "${c.timezone}"` }
    config.timezone = c.timezone
  }
  if (c.checkin_margin !== undefined) config.checkinMargin = c.checkin_margin
  if (c.max_runtime !== undefined) config.maxRuntime = c.max_runtime
  if (c.failure_issue_threshold !== undefined)
    config.failureIssueThreshold = c.failure_issue_threshold
  if (c.recovery_threshold !== undefined) config.recoveryThreshold = c.recovery_threshold
  return { ok: true, config }
}

/**
 * The first run the schedule expects strictly after `afterMs`, on a minute boundary, in
 * `timezone`. Crontab: the next cron match in that zone (a wall-clock time skipped by a DST
 * change runs at the first instant after the gap; a repeated hour runs once). Interval: `after`
 * truncated to the minute plus N units, calendar arithmetic in that zone for day and longer.
 */
export function nextRun(schedule: Schedule, timezone: string, afterMs: number): number {
  if (schedule.type === 'crontab') {
    const expr = CronExpressionParser.parse(schedule.value, {
      currentDate: new Date(afterMs),
      tz: timezone,
    })
    return expr.next().getTime()
  }
  const start = DateTime.fromMillis(afterMs, { zone: timezone }).startOf('minute')
  return start.plus({ [`${schedule.unit}s`]: schedule.value }).toMillis()
}

/** The schedule as the API shows it (`{type, value[, unit]}`). */
export function scheduleJson(s: Schedule): {
  type: 'crontab' | 'interval'
  value: string | number
  unit?: string
} {
  return s.type === 'crontab'
    ? { type: 'crontab', value: s.value }
    : { type: 'interval', value: s.value, unit: s.unit }
}
