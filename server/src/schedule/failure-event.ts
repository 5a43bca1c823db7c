/**
 * The error event a failed cron run becomes. Cron monitoring is a source of ordinary events
 * (spec, "What the service does" 4): the payload built here goes through `digestEvent` and the
 * group commit like any SDK event, so it is grouped, alerted on and triaged the same way. The
 * fingerprint puts all failures of one kind of one monitor into one issue.
 */
import { type Schedule, scheduleJson } from './schedule.ts'

/** The ways a run fails. */
export type FailureKind = 'missed' | 'timeout' | 'error'

/** What is known about a failed run. */
export interface FailedRun {
  kind: FailureKind
  slug: string
  environment: string
  release: string | null
  checkInId: string
  /** When the failure happened (missed: the deadline; timeout: the runtime limit), ms. */
  at: number
  schedule?: Schedule | undefined
  timezone?: string | undefined
  checkinMargin?: number | undefined
  maxRuntime?: number | undefined
  expectedTime?: number | null | undefined
  startedAt?: number | null | undefined
  durationMs?: number | null | undefined
  traceId?: string | null | undefined
}

/** Exception types, after the issue types Sentry files cron failures under. */
export const FAILURE_TYPES: Record<FailureKind, string> = {
  missed: 'MonitorCheckInMissed',
  timeout: 'MonitorCheckInTimeout',
  error: 'MonitorCheckInFailure',
}

const iso = (ms: number | null | undefined): string | null =>
  ms === null || ms === undefined ? null : new Date(ms).toISOString()

/** One sentence saying what went wrong; stable per monitor and kind (it becomes the title). */
export function failureMessage(f: FailedRun): string {
  const m = `Cron monitor "${f.slug}"`
  switch (f.kind) {
    case 'missed':
      return `${m} missed a run: no check-in within ${f.checkinMargin ?? 1} min of the scheduled time`
    case 'timeout':
      return `${m} is overrunning: still running after its max runtime of ${f.maxRuntime ?? 30} min`
    case 'error':
      return `${m} reported a failed run`
  }
}

/** The event payload (SDK shape) for a failed run. */
export function failureEvent(f: FailedRun): Record<string, unknown> {
  const monitor: Record<string, unknown> = {
    slug: f.slug,
    failure: f.kind,
    check_in_id: f.checkInId,
    environment: f.environment,
  }
  if (f.schedule !== undefined) monitor['schedule'] = scheduleJson(f.schedule)
  if (f.timezone !== undefined) monitor['timezone'] = f.timezone
  if (f.checkinMargin !== undefined) monitor['checkin_margin'] = f.checkinMargin
  if (f.maxRuntime !== undefined) monitor['max_runtime'] = f.maxRuntime
  if (f.expectedTime != null) monitor['expected_time'] = iso(f.expectedTime)
  if (f.startedAt != null) monitor['started'] = iso(f.startedAt)
  if (f.durationMs != null) monitor['duration_ms'] = f.durationMs
  const contexts: Record<string, unknown> = { monitor }
  if (typeof f.traceId === 'string') contexts['trace'] = { trace_id: f.traceId, type: 'trace' }
  return {
    level: 'error',
    platform: 'other',
    logger: 'cron',
    timestamp: f.at / 1000,
    environment: f.environment,
    ...(f.release !== null ? { release: f.release } : {}),
    transaction: f.slug,
    fingerprint: ['cron', f.slug, f.kind],
    exception: { values: [{ type: FAILURE_TYPES[f.kind], value: failureMessage(f) }] },
    tags: { 'monitor.slug': f.slug, 'monitor.failure': f.kind },
    contexts,
  }
}
