import type pg from 'pg'
import { derivedId, ZERO_ID } from '../../schedule/ids.ts'
import { MONITOR_DEFAULTS, type MonitorConfig } from '../../schedule/schedule.ts'
import { decideCheckIn } from '../checkin-rules.ts'
import type {
  CheckInRecord,
  CheckInToWrite,
  MonitorFailure,
  MonitorStore,
} from '../monitor-types.ts'
import {
  type DueEnvRow,
  decodeCursor,
  type EnvRow,
  HEX32,
  type MonitorRow,
  type PendingRow,
  type RunRow,
  safeNextRun,
  scheduleColumns,
  scheduleOf,
  toMonitor,
} from '../rows/monitors.ts'
import type { EventToWrite, EventWriteResult, OutcomeDelta } from '../types.ts'
import { all, type Db, first, named, run, transaction } from './db.ts'

const MINUTE = 60_000
/** Missed runs a late check-in records in the ingest transaction; the clock records the rest. */
const LATE_BUDGET = 500

/**
 * Records the runs of an environment missed by `now` (at most `budget`), keyed by environment
 * and expected time (a second attempt hits the unique key), then advances the schedule; the
 * same bookkeeping as the SQLite store's. Returns how many runs it recorded.
 */
async function recordMissed(c: Db, e: DueEnvRow, now: number, budget: number): Promise<number> {
  const schedule = scheduleOf(e)
  let expected: number | null = e.next_checkin
  let latest: number | null = e.next_checkin_latest
  let failures = e.failures
  let n = 0
  while (expected !== null && latest !== null && latest <= now && n < budget) {
    failures++
    const checkInId = derivedId('missed', e.id, expected)
    const report = failures >= e.failure_issue_threshold
    await run(
      c,
      ...named(
        `INSERT INTO monitor_checkins (monitor_id, environment_id, check_in_id, status, date_added, date_updated,
           expected_time, event_id, event_pending)
         VALUES (@monitorId, @environmentId, @checkInId, 'missed', @expected, @now, @expected, @eventId, @pending)
         ON CONFLICT (monitor_id, check_in_id) DO NOTHING`,
        {
          monitorId: e.monitor_id,
          environmentId: e.id,
          checkInId,
          expected,
          now,
          eventId: report ? checkInId : null,
          pending: report ? 1 : 0,
        },
      ),
    )
    n++
    const next = safeNextRun(schedule, e.timezone, expected)
    expected = next
    latest = next === null ? null : next + e.checkin_margin * MINUTE
  }
  if (n > 0)
    await run(
      c,
      `UPDATE monitor_environments SET status = 'missed', failures = $1, next_checkin = $2,
         next_checkin_latest = $3 WHERE id = $4`,
      [failures, expected, latest, e.id],
    )
  return n
}

/** Writes one event inside the ingest transaction and counts its outcome. */
export type AsyncEventWriter = (e: EventToWrite) => Promise<EventWriteResult>

const getMonitor = (c: Db, projectId: number, slug: string) =>
  first<MonitorRow>(c, 'SELECT * FROM monitors WHERE project_id = $1 AND slug = $2', [
    projectId,
    slug,
  ])
const getEnv = (c: Db, monitorId: number, environment: string) =>
  first<EnvRow>(
    c,
    'SELECT * FROM monitor_environments WHERE monitor_id = $1 AND environment = $2 FOR UPDATE',
    [monitorId, environment],
  )

/** Creates or updates the monitor a check-in names; a string is the rejection reason. */
async function upsertMonitor(c: Db, ci: CheckInToWrite): Promise<MonitorRow | string> {
  const found = await getMonitor(c, ci.projectId, ci.slug)
  const config: MonitorConfig | undefined = ci.config?.ok === true ? ci.config.config : undefined
  if (found === undefined && config === undefined) {
    return ci.config === undefined ? 'monitor_not_found' : 'invalid_monitor_config'
  }
  if (config === undefined && found !== undefined) return found
  const cfg = config as MonitorConfig
  const columns = {
    ...scheduleColumns(cfg.schedule),
    timezone: cfg.timezone ?? null,
    checkinMargin: cfg.checkinMargin ?? null,
    maxRuntime: cfg.maxRuntime ?? null,
    failureIssueThreshold: cfg.failureIssueThreshold ?? null,
    recoveryThreshold: cfg.recoveryThreshold ?? null,
    now: ci.received,
  }
  if (found === undefined) {
    // Two nodes creating one monitor at once: the second insert does nothing, then updates.
    const inserted = await run(
      c,
      ...named(
        `INSERT INTO monitors (project_id, slug, schedule_type, schedule_value, schedule_unit, timezone, checkin_margin,
           max_runtime, failure_issue_threshold, recovery_threshold, created_at, updated_at)
         VALUES (@projectId, @slug, @scheduleType, @scheduleValue, @scheduleUnit, @timezone, @checkinMargin,
           @maxRuntime, @failureIssueThreshold, @recoveryThreshold, @now, @now)
         ON CONFLICT (project_id, slug) DO NOTHING`,
        {
          ...columns,
          projectId: ci.projectId,
          slug: ci.slug,
          timezone: cfg.timezone ?? MONITOR_DEFAULTS.timezone,
          checkinMargin: cfg.checkinMargin ?? MONITOR_DEFAULTS.checkinMargin,
          maxRuntime: cfg.maxRuntime ?? MONITOR_DEFAULTS.maxRuntime,
          failureIssueThreshold:
            cfg.failureIssueThreshold ?? MONITOR_DEFAULTS.failureIssueThreshold,
          recoveryThreshold: cfg.recoveryThreshold ?? MONITOR_DEFAULTS.recoveryThreshold,
        },
      ),
    )
    if (inserted === 1) return (await getMonitor(c, ci.projectId, ci.slug)) as MonitorRow
  }
  // The schedule is always replaced; other keys only when the config has them (Sentry).
  await run(
    c,
    ...named(
      `UPDATE monitors SET schedule_type = @scheduleType, schedule_value = @scheduleValue,
         schedule_unit = @scheduleUnit, timezone = coalesce(@timezone::text, timezone),
         checkin_margin = coalesce(@checkinMargin::bigint, checkin_margin),
         max_runtime = coalesce(@maxRuntime::bigint, max_runtime),
         failure_issue_threshold = coalesce(@failureIssueThreshold::bigint, failure_issue_threshold),
         recovery_threshold = coalesce(@recoveryThreshold::bigint, recovery_threshold), updated_at = @now
       WHERE project_id = @projectId AND slug = @slug`,
      { ...columns, projectId: ci.projectId, slug: ci.slug },
    ),
  )
  return (await getMonitor(c, ci.projectId, ci.slug)) as MonitorRow
}

/** The lock keys of check-ins' monitors, `project/slug`, distinct and sorted. */
export const monitorLockKeys = (checkIns: readonly CheckInToWrite[]): string[] =>
  [...new Set(checkIns.map((ci) => `${ci.projectId}/${ci.slug}`))].sort()

/**
 * Serialises the check-ins of the given monitors with every other transaction's until commit:
 * one transaction-scoped advisory lock per (project, slug), taken in sorted order so two
 * groups never wait on each other in a cycle. Without it, the `ok` of a run (no config)
 * committed while the `in_progress` that creates the monitor was still open found no monitor
 * and was refused (`monitor_not_found`), though answered 200: reading `monitors` does not
 * wait for an uncommitted insert, and the environment's `FOR UPDATE` came too late. Reads
 * after the lock see whatever the holder committed (READ COMMITTED takes a snapshot per
 * statement). A hash collision of two slugs only serialises them too.
 */
export async function lockMonitors(c: Db, checkIns: readonly CheckInToWrite[]): Promise<void> {
  for (const key of monitorLockKeys(checkIns))
    await run(c, 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key])
}

/**
 * The check-in part of the ingest transaction on PostgreSQL: the same steps as the SQLite
 * writer (upsert the monitor, open/heartbeat/close the run by checkin-rules.ts, recompute the
 * next expected run, write a failed run's error event); the environment row is read
 * `FOR UPDATE`, so check-ins of one environment on several nodes apply one after the other.
 */
export async function pgWriteCheckIn(
  c: Db,
  ci: CheckInToWrite,
  writeEvent: AsyncEventWriter,
  count: (o: OutcomeDelta) => void,
): Promise<EventWriteResult | undefined> {
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
  const monitor = await upsertMonitor(c, ci)
  if (typeof monitor === 'string') return outcome('rejected', monitor)
  await run(
    c,
    `INSERT INTO monitor_environments (monitor_id, environment, status) VALUES ($1, $2, 'active')
     ON CONFLICT (monitor_id, environment) DO NOTHING`,
    [monitor.id, ci.environment],
  )
  let env = await getEnv(c, monitor.id, ci.environment)
  if (env === undefined) throw new Error('monitor environment insert returned nothing')
  // Arriving after the deadline: the expected run was missed (the clock may not have ticked).
  if (env.next_checkin_latest !== null && env.next_checkin_latest <= ci.received) {
    await recordMissed(c, { ...monitor, ...env }, ci.received, LATE_BUDGET)
    env = (await getEnv(c, monitor.id, ci.environment)) ?? env
  }
  let checkInId = ci.checkInId
  let runRow: RunRow | undefined
  if (checkInId === ZERO_ID) {
    runRow = await first<RunRow>(
      c,
      `SELECT * FROM monitor_checkins WHERE environment_id = $1 AND status = 'in_progress' ORDER BY id DESC LIMIT 1`,
      [env.id],
    )
    checkInId = runRow?.check_in_id ?? ci.freshId
  } else {
    runRow = await first<RunRow>(
      c,
      'SELECT * FROM monitor_checkins WHERE monitor_id = $1 AND check_in_id = $2',
      [monitor.id, checkInId],
    )
  }
  if (runRow !== undefined && runRow.environment_id !== env.id) {
    return outcome('rejected', 'checkin_environment_mismatch')
  }
  const decision = decideCheckIn(
    runRow === undefined
      ? undefined
      : { status: runRow.status, dateAdded: runRow.date_added, timeoutAt: runRow.timeout_at },
    env,
    ci,
    monitor.max_runtime * MINUTE,
  )
  if (decision.kind === 'rejected') return outcome('rejected', decision.reason)
  if (decision.kind === 'unchanged') return outcome('accepted')
  const { failed, envStatus, failures } = decision
  const w = decision.run
  if (w.kind === 'insert')
    await run(
      c,
      `INSERT INTO monitor_checkins (monitor_id, environment_id, check_in_id, status, date_added, date_updated,
         expected_time, timeout_at, duration, release, trace_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        monitor.id,
        env.id,
        checkInId,
        w.status,
        w.dateAdded,
        ci.received,
        env.next_checkin,
        w.timeoutAt,
        w.duration,
        ci.release,
        ci.traceId,
      ],
    )
  else if (runRow !== undefined)
    await run(
      c,
      `UPDATE monitor_checkins SET status = $1, date_updated = $2, timeout_at = $3, duration = $4 WHERE id = $5`,
      [w.status, ci.received, w.timeoutAt, w.duration, runRow.id],
    )
  const next = safeNextRun(scheduleOf(monitor), monitor.timezone, ci.received)
  await run(
    c,
    `UPDATE monitor_environments SET status = $1, failures = $2, last_checkin = $3,
       next_checkin = $4, next_checkin_latest = $5 WHERE id = $6`,
    [
      envStatus,
      failures,
      ci.received,
      next,
      next === null ? null : next + monitor.checkin_margin * MINUTE,
      env.id,
    ],
  )
  outcome('accepted')
  if (!failed || ci.failure === undefined || failures < monitor.failure_issue_threshold) return
  await run(
    c,
    'UPDATE monitor_checkins SET event_id = $1 WHERE monitor_id = $2 AND check_in_id = $3',
    [ci.failure.eventId, monitor.id, checkInId],
  )
  return writeEvent(ci.failure)
}

const toFailure = (r: PendingRow): MonitorFailure => ({
  runId: r.id,
  kind: r.status === 'timeout' ? 'timeout' : 'missed',
  eventId: r.event_id ?? '',
  projectId: r.project_id,
  slug: r.slug,
  environment: r.environment,
  schedule: scheduleOf(r),
  timezone: r.timezone,
  checkinMargin: r.checkin_margin,
  maxRuntime: r.max_runtime,
  checkInId: r.check_in_id,
  expectedTime: r.expected_time,
  dateAdded: r.date_added,
  release: r.release,
  detectedAt: r.date_updated,
})

/** Monitor reads and the clock's bookkeeping on PostgreSQL. */
export function pgMonitors(pool: pg.Pool): MonitorStore {
  return {
    listMonitors: async (projectId) => {
      const envs = await all<EnvRow>(
        pool,
        `SELECT e.* FROM monitor_environments e JOIN monitors m ON m.id = e.monitor_id
         WHERE m.project_id = $1 ORDER BY e.environment`,
        [projectId],
      )
      const monitors = await all<MonitorRow>(
        pool,
        'SELECT * FROM monitors WHERE project_id = $1 ORDER BY slug',
        [projectId],
      )
      return monitors.map((m) => toMonitor(m, envs))
    },
    getMonitor: async (projectId, slug) => {
      const m = await getMonitor(pool, projectId, slug)
      if (m === undefined) return undefined
      const envs = await all<EnvRow>(
        pool,
        'SELECT * FROM monitor_environments WHERE monitor_id = $1 ORDER BY environment',
        [m.id],
      )
      return toMonitor(m, envs)
    },
    listCheckIns: async (monitorId, filter, page) => {
      const [before, beforeId] = decodeCursor(page.cursor)
      const rows = await all<RunRow & { environment: string }>(
        pool,
        `SELECT c.*, e.environment FROM monitor_checkins c JOIN monitor_environments e ON e.id = c.environment_id
         WHERE c.monitor_id = $1 AND ($2::text IS NULL OR e.environment = $2::text)
           AND (c.date_added < $3 OR (c.date_added = $3 AND c.id < $4))
         ORDER BY c.date_added DESC, c.id DESC LIMIT $5`,
        [monitorId, filter.environment ?? null, before, beforeId, page.limit + 1],
      )
      const more = rows.length > page.limit
      const list = rows.slice(0, page.limit)
      const last = list.at(-1)
      const checkIns = list.map(
        (r): CheckInRecord => ({
          checkInId: r.check_in_id,
          environment: r.environment,
          status: r.status,
          dateAdded: r.date_added,
          dateUpdated: r.date_updated,
          expectedTime: r.expected_time,
          timeoutAt: r.timeout_at,
          durationMs: r.duration,
          release: r.release,
          eventId: r.event_id,
        }),
      )
      return more && last !== undefined
        ? { checkIns, next: `${last.date_added}:${last.id}` }
        : { checkIns }
    },
    acquireLease: async (name, holder, now, ttlMs) =>
      (await run(
        pool,
        `INSERT INTO clock_leases (name, holder, expires_at, last_tick) VALUES ($1, $2, $3, 0)
         ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
         WHERE clock_leases.holder = $2 OR clock_leases.expires_at <= $4`,
        [name, holder, now + ttlMs, now],
      )) === 1,
    releaseLease: async (name, holder) => {
      await run(pool, 'UPDATE clock_leases SET expires_at = 0 WHERE name = $1 AND holder = $2', [
        name,
        holder,
      ])
    },
    getLease: async (name) => {
      const l = await first<{
        name: string
        holder: string
        expires_at: number
        last_tick: number
      }>(pool, 'SELECT * FROM clock_leases WHERE name = $1', [name])
      return l === undefined
        ? undefined
        : { name: l.name, holder: l.holder, expiresAt: l.expires_at, lastTick: l.last_tick }
    },
    noteTick: async (name, holder, tick) => {
      await run(
        pool,
        'UPDATE clock_leases SET last_tick = GREATEST(last_tick, $1) WHERE name = $2 AND holder = $3',
        [tick, name, holder],
      )
    },
    recordMonitorFailures: (now, limit) =>
      transaction(pool, async (c) => {
        let n = 0
        const timeouts = await all<
          RunRow & { failures: number; threshold: number; project_id: number }
        >(
          c,
          `SELECT c.*, e.failures, m.failure_issue_threshold AS threshold, m.project_id FROM monitor_checkins c
           JOIN monitor_environments e ON e.id = c.environment_id JOIN monitors m ON m.id = c.monitor_id
           WHERE c.status = 'in_progress' AND c.timeout_at <= $1 ORDER BY c.timeout_at LIMIT $2
           FOR UPDATE OF c, e`,
          [now, limit],
        )
        for (const r of timeouts) {
          const report = r.failures + 1 >= r.threshold
          const eventId = report
            ? derivedId('timeout', r.project_id, r.monitor_id, r.check_in_id)
            : null
          await run(
            c,
            `UPDATE monitor_checkins SET status = 'timeout', date_updated = $1, event_id = $2, event_pending = $3
             WHERE id = $4 AND status = 'in_progress'`,
            [now, eventId, report ? 1 : 0, r.id],
          )
          await run(
            c,
            'UPDATE monitor_environments SET status = $1, failures = failures + $2 WHERE id = $3',
            ['timeout', 1, r.environment_id],
          )
          n++
        }
        const due = await all<DueEnvRow>(
          c,
          `SELECT e.*, m.schedule_type, m.schedule_value, m.schedule_unit, m.timezone, m.checkin_margin,
             m.max_runtime, m.failure_issue_threshold, m.project_id
           FROM monitor_environments e JOIN monitors m ON m.id = e.monitor_id
           WHERE e.next_checkin_latest IS NOT NULL AND e.next_checkin_latest <= $1
           ORDER BY e.next_checkin_latest LIMIT $2 FOR UPDATE OF e`,
          [now, limit],
        )
        for (const e of due) {
          if (n >= limit) break
          n += await recordMissed(c, e, now, limit - n)
        }
        return n
      }),
    pendingMonitorFailures: async (limit) =>
      (
        await all<PendingRow>(
          pool,
          `SELECT c.*, e.environment, m.project_id, m.slug, m.schedule_type, m.schedule_value, m.schedule_unit,
             m.timezone, m.checkin_margin, m.max_runtime
           FROM monitor_checkins c JOIN monitor_environments e ON e.id = c.environment_id
           JOIN monitors m ON m.id = c.monitor_id
           WHERE c.event_pending = 1 ORDER BY c.id LIMIT $1`,
          [limit],
        )
      )
        .filter((r) => HEX32.test(r.event_id ?? ''))
        .map(toFailure),
    markMonitorFailuresReported: async (ids) => {
      await run(
        pool,
        'UPDATE monitor_checkins SET event_pending = 0 WHERE id = ANY($1::bigint[])',
        [ids],
      )
    },
  }
}
