/**
 * Monitor, environment and run rows as both stores read them, their mapping to the store
 * types, and the schedule columns; shared so the SQLite and PostgreSQL stores cannot differ.
 */
import { type IntervalUnit, nextRun, type Schedule } from '../../schedule/schedule.ts'
import type { Monitor, MonitorEnvironment, MonitorEnvStatus, RunStatus } from '../monitor-types.ts'

/** A `monitors` row (the same columns on both backends). */
export interface MonitorRow {
  id: number
  project_id: number
  slug: string
  schedule_type: string
  schedule_value: string
  schedule_unit: string | null
  timezone: string
  checkin_margin: number
  max_runtime: number
  failure_issue_threshold: number
  recovery_threshold: number
  created_at: number
  updated_at: number
}

/** A `monitor_environments` row. */
export interface EnvRow {
  id: number
  monitor_id: number
  environment: string
  status: MonitorEnvStatus
  last_checkin: number | null
  next_checkin: number | null
  next_checkin_latest: number | null
  failures: number
}

/** A `monitor_checkins` row. */
export interface RunRow {
  id: number
  monitor_id: number
  environment_id: number
  check_in_id: string
  status: RunStatus
  date_added: number
  date_updated: number
  expected_time: number | null
  timeout_at: number | null
  duration: number | null
  release: string | null
  event_id: string | null
}

type ScheduleColumns = Pick<MonitorRow, 'schedule_type' | 'schedule_value' | 'schedule_unit'>

/** The schedule a monitor row describes. */
export const scheduleOf = (m: ScheduleColumns): Schedule =>
  m.schedule_type === 'interval'
    ? { type: 'interval', value: Number(m.schedule_value), unit: m.schedule_unit as IntervalUnit }
    : { type: 'crontab', value: m.schedule_value }

/** A schedule as the monitor row's columns. */
export const scheduleColumns = (s: Schedule) => ({
  scheduleType: s.type,
  scheduleValue: String(s.value),
  scheduleUnit: s.type === 'interval' ? s.unit : null,
})

const toEnv = (e: EnvRow): MonitorEnvironment => ({
  id: e.id,
  environment: e.environment,
  status: e.status,
  lastCheckIn: e.last_checkin,
  nextCheckIn: e.next_checkin,
  nextCheckInLatest: e.next_checkin_latest,
  failures: e.failures,
})

/** Maps a monitor row and its environments to the interface type. */
export const toMonitor = (m: MonitorRow, envs: EnvRow[]): Monitor => ({
  id: m.id,
  projectId: m.project_id,
  slug: m.slug,
  schedule: scheduleOf(m),
  timezone: m.timezone,
  checkinMargin: m.checkin_margin,
  maxRuntime: m.max_runtime,
  failureIssueThreshold: m.failure_issue_threshold,
  recoveryThreshold: m.recovery_threshold,
  createdAt: m.created_at,
  updatedAt: m.updated_at,
  environments: envs.filter((e) => e.monitor_id === m.id).map(toEnv),
})

/**
 * The next expected run, or null when the schedule cannot be evaluated: a monitor whose
 * schedule breaks must never fail the group commit it is written in (it just cannot be missed).
 */
export function safeNextRun(schedule: Schedule, timezone: string, after: number): number | null {
  try {
    return nextRun(schedule, timezone, after)
  } catch {
    return null
  }
}

/** An environment with the monitor columns missed-run detection needs. */
export interface DueEnvRow extends EnvRow {
  schedule_type: string
  schedule_value: string
  schedule_unit: string | null
  timezone: string
  checkin_margin: number
  failure_issue_threshold: number
}

/** A run whose error event waits for the clock, with its monitor's columns. */
export interface PendingRow extends RunRow, Omit<MonitorRow, 'id'> {
  environment: string
}

/** A check-in's error event id is 32 hex digits. */
export const HEX32 = /^[0-9a-f]{32}$/

/** Keyset cursor `dateAdded:id` of the check-in timeline; none or a malformed one is the first page. */
export function decodeCursor(cursor: string | undefined): [number, number] {
  const [a, b] = (cursor ?? '').split(':').map(Number)
  return cursor !== undefined && Number.isSafeInteger(a) && Number.isSafeInteger(b)
    ? [a as number, b as number]
    : [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER]
}
