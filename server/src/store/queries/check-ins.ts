import { derivedId, ZERO_ID } from '../../schedule/ids.ts'
import { MONITOR_DEFAULTS, type MonitorConfig } from '../../schedule/schedule.ts'
import { decideCheckIn } from '../checkin-rules.ts'
import type { EventToWrite, OutcomeDelta } from '../model.ts'
import type { CheckInToWrite } from '../monitor-types.ts'
import {
  type DueEnvRow,
  type EnvRow,
  type MonitorRow,
  type RunRow,
  safeNextRun,
  scheduleColumns,
  scheduleOf,
} from '../rows/monitors.ts'
import { type Dialect, type Steps, step } from '../sql/port.ts'
import { raw, sql } from '../sql/statement.ts'

const MINUTE = 60_000
/** Missed runs a late check-in records in the ingest transaction; the clock records the rest. */
export const LATE_BUDGET = 500

/**
 * Records the runs of an environment missed by `now` (at most `budget`): one `missed` run per
 * expected time whose margin passed, keyed by environment and expected time (a second attempt
 * hits the unique key), its error event pending for the clock once `failures` reaches the
 * monitor's threshold; then advances the schedule. Used by the clock and by a check-in that
 * arrives after the deadline (the late run was missed). Returns how many runs it recorded.
 */
export function* missedRunSteps(e: DueEnvRow, now: number, budget: number): Steps<number> {
  const schedule = scheduleOf(e)
  let expected: number | null = e.next_checkin
  let latest: number | null = e.next_checkin_latest
  let failures = e.failures
  let n = 0
  while (expected !== null && latest !== null && latest <= now && n < budget) {
    failures++
    const checkInId = derivedId('missed', e.id, expected)
    const report = failures >= e.failure_issue_threshold
    yield* step.run(
      sql`INSERT INTO monitor_checkins (monitor_id, environment_id, check_in_id, status, date_added,
            date_updated, expected_time, event_id, event_pending)
          VALUES (${e.monitor_id}, ${e.id}, ${checkInId}, 'missed', ${expected}, ${now}, ${expected},
            ${report ? checkInId : null}, ${report ? 1 : 0})
          ON CONFLICT (monitor_id, check_in_id) DO NOTHING`,
    )
    n++
    const next = safeNextRun(schedule, e.timezone, expected)
    expected = next
    latest = next === null ? null : next + e.checkin_margin * MINUTE
  }
  if (n > 0)
    yield* step.run(
      sql`UPDATE monitor_environments SET status = 'missed', failures = ${failures},
            next_checkin = ${expected}, next_checkin_latest = ${latest} WHERE id = ${e.id}`,
    )
  return n
}

const getMonitor = (projectId: number, slug: string) =>
  step.first<MonitorRow>(
    sql`SELECT * FROM monitors WHERE project_id = ${projectId} AND slug = ${slug}`,
  )

/** Creates or updates the monitor a check-in names; a string is the rejection reason. */
function* upsertMonitor(ci: CheckInToWrite): Steps<MonitorRow | string> {
  const found = yield* getMonitor(ci.projectId, ci.slug)
  const config: MonitorConfig | undefined = ci.config?.ok === true ? ci.config.config : undefined
  if (found === undefined && config === undefined) {
    return ci.config === undefined ? 'monitor_not_found' : 'invalid_monitor_config'
  }
  if (config === undefined && found !== undefined) return found
  const cfg = config as MonitorConfig
  const s = scheduleColumns(cfg.schedule)
  if (found === undefined) {
    // Two PostgreSQL nodes creating one monitor at once: the second insert does nothing, then
    // updates (SQLite's one writer never conflicts here).
    const inserted = yield* step.run(
      sql`INSERT INTO monitors (project_id, slug, schedule_type, schedule_value, schedule_unit,
            timezone, checkin_margin, max_runtime, failure_issue_threshold, recovery_threshold,
            created_at, updated_at)
          VALUES (${ci.projectId}, ${ci.slug}, ${s.scheduleType}, ${s.scheduleValue}, ${s.scheduleUnit},
            ${cfg.timezone ?? MONITOR_DEFAULTS.timezone},
            ${cfg.checkinMargin ?? MONITOR_DEFAULTS.checkinMargin},
            ${cfg.maxRuntime ?? MONITOR_DEFAULTS.maxRuntime},
            ${cfg.failureIssueThreshold ?? MONITOR_DEFAULTS.failureIssueThreshold},
            ${cfg.recoveryThreshold ?? MONITOR_DEFAULTS.recoveryThreshold},
            ${ci.received}, ${ci.received})
          ON CONFLICT (project_id, slug) DO NOTHING`,
    )
    if (inserted === 1) return (yield* getMonitor(ci.projectId, ci.slug)) as MonitorRow
  }
  // The schedule is always replaced; other keys only when the config has them (Sentry). CAST:
  // PostgreSQL must know the type of a parameter that may be NULL.
  const keep = (v: string | number | undefined, type: 'TEXT' | 'BIGINT', column: string) =>
    sql`coalesce(CAST(${v ?? null} AS ${raw(type)}), ${raw(column)})`
  yield* step.run(
    sql`UPDATE monitors SET schedule_type = ${s.scheduleType}, schedule_value = ${s.scheduleValue},
          schedule_unit = ${s.scheduleUnit}, timezone = ${keep(cfg.timezone, 'TEXT', 'timezone')},
          checkin_margin = ${keep(cfg.checkinMargin, 'BIGINT', 'checkin_margin')},
          max_runtime = ${keep(cfg.maxRuntime, 'BIGINT', 'max_runtime')},
          failure_issue_threshold = ${keep(cfg.failureIssueThreshold, 'BIGINT', 'failure_issue_threshold')},
          recovery_threshold = ${keep(cfg.recoveryThreshold, 'BIGINT', 'recovery_threshold')},
          updated_at = ${ci.received}
        WHERE project_id = ${ci.projectId} AND slug = ${ci.slug}`,
  )
  return (yield* getMonitor(ci.projectId, ci.slug)) as MonitorRow
}

/**
 * The check-in part of the ingest transaction (protocol.md §9 steps 2–5), written once: upserts
 * the monitor from `monitor_config`, records the missed runs of a check-in that arrives after
 * the deadline, opens, heartbeats or closes the run by checkin-rules.ts, recomputes the next
 * expected run, and links a failed run's error event once the failures reach the monitor's
 * threshold. Returns that error event for the caller to write in the same transaction.
 *
 * On PostgreSQL the environment row is read `FOR UPDATE`, so check-ins of one environment on
 * several nodes apply one after the other (the group has already taken the monitors' advisory
 * locks, postgres/monitor-locks.ts); SQLite's one writer needs neither.
 */
export function* checkInSteps(
  dialect: Dialect,
  ci: CheckInToWrite,
  count: (o: OutcomeDelta) => void,
): Steps<EventToWrite | undefined> {
  const outcome = (kind: 'accepted' | 'rejected', reason = ''): undefined => {
    count({
      projectId: ci.projectId,
      keyId: ci.keyId,
      at: ci.received,
      outcome: kind,
      reason,
      category: 'monitor',
      quantity: 1,
    })
    return undefined
  }
  const monitor = yield* upsertMonitor(ci)
  if (typeof monitor === 'string') return outcome('rejected', monitor)
  const getEnv = () =>
    step.first<EnvRow>(
      sql`SELECT * FROM monitor_environments WHERE monitor_id = ${monitor.id}
          AND environment = ${ci.environment} ${raw(dialect === 'postgres' ? 'FOR UPDATE' : '')}`,
    )
  const insertEnv = sql`INSERT INTO monitor_environments (monitor_id, environment, status)
    VALUES (${monitor.id}, ${ci.environment}, 'active')`
  let env: EnvRow | undefined
  if (dialect === 'postgres') {
    // The row must exist before it can be locked: insert-if-missing, then read it FOR UPDATE.
    yield* step.run(sql`${insertEnv} ON CONFLICT (monitor_id, environment) DO NOTHING`)
    env = yield* getEnv()
  } else {
    // One read when the environment exists (every check-in but its first).
    env = (yield* getEnv()) ?? (yield* step.first<EnvRow>(sql`${insertEnv} RETURNING *`))
  }
  if (env === undefined) throw new Error('monitor environment insert returned nothing')
  // Arriving after the deadline: the expected run was missed (the clock may not have ticked).
  if (env.next_checkin_latest !== null && env.next_checkin_latest <= ci.received) {
    yield* missedRunSteps({ ...monitor, ...env }, ci.received, LATE_BUDGET)
    env = (yield* getEnv()) ?? env
  }
  let checkInId = ci.checkInId
  let run: RunRow | undefined
  if (checkInId === ZERO_ID) {
    run = yield* step.first<RunRow>(
      sql`SELECT * FROM monitor_checkins WHERE environment_id = ${env.id} AND status = 'in_progress'
          ORDER BY id DESC LIMIT 1`,
    )
    checkInId = run?.check_in_id ?? ci.freshId
  } else {
    run = yield* step.first<RunRow>(
      sql`SELECT * FROM monitor_checkins WHERE monitor_id = ${monitor.id} AND check_in_id = ${checkInId}`,
    )
  }
  if (run !== undefined && run.environment_id !== env.id) {
    return outcome('rejected', 'checkin_environment_mismatch')
  }
  const decision = decideCheckIn(
    run === undefined
      ? undefined
      : { status: run.status, dateAdded: run.date_added, timeoutAt: run.timeout_at },
    env,
    ci,
    monitor.max_runtime * MINUTE,
  )
  if (decision.kind === 'rejected') return outcome('rejected', decision.reason)
  if (decision.kind === 'unchanged') return outcome('accepted')
  const { failed, envStatus, failures } = decision
  const w = decision.run
  if (w.kind === 'insert')
    yield* step.run(
      sql`INSERT INTO monitor_checkins (monitor_id, environment_id, check_in_id, status, date_added,
            date_updated, expected_time, timeout_at, duration, release, trace_id)
          VALUES (${monitor.id}, ${env.id}, ${checkInId}, ${w.status}, ${w.dateAdded}, ${ci.received},
            ${env.next_checkin}, ${w.timeoutAt}, ${w.duration}, ${ci.release}, ${ci.traceId})`,
    )
  else if (run !== undefined)
    yield* step.run(
      sql`UPDATE monitor_checkins SET status = ${w.status}, date_updated = ${ci.received},
            timeout_at = ${w.timeoutAt}, duration = ${w.duration} WHERE id = ${run.id}`,
    )
  const next = safeNextRun(scheduleOf(monitor), monitor.timezone, ci.received)
  yield* step.run(
    sql`UPDATE monitor_environments SET status = ${envStatus}, failures = ${failures},
          last_checkin = ${ci.received}, next_checkin = ${next},
          next_checkin_latest = ${next === null ? null : next + monitor.checkin_margin * MINUTE}
        WHERE id = ${env.id}`,
  )
  outcome('accepted')
  if (!failed || ci.failure === undefined || failures < monitor.failure_issue_threshold) return
  yield* step.run(
    sql`UPDATE monitor_checkins SET event_id = ${ci.failure.eventId}
        WHERE monitor_id = ${monitor.id} AND check_in_id = ${checkInId}`,
  )
  return ci.failure
}
