import type Database from 'better-sqlite3'
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

const MINUTE = 60_000
/** Missed runs a late check-in records in the ingest transaction; the clock records the rest. */
const LATE_BUDGET = 500

/**
 * Records the runs of an environment missed by `now` (at most `budget`): one `missed` run per
 * expected time whose margin passed, keyed by environment and expected time (a second attempt
 * hits the unique key), its error event pending for the clock; then advances the schedule.
 * Used by the clock and by a check-in that arrives after the deadline (the late run was missed).
 * Returns how many runs it recorded.
 */
function sqliteMissedRecorder(
  db: Database.Database,
): (e: DueEnvRow, now: number, budget: number) => number {
  const insertMissed = db.prepare(
    `INSERT INTO monitor_checkins (monitor_id, environment_id, check_in_id, status, date_added, date_updated,
       expected_time, event_id, event_pending)
     VALUES (@monitorId, @environmentId, @checkInId, 'missed', @expected, @now, @expected, @eventId, @pending)
     ON CONFLICT (monitor_id, check_in_id) DO NOTHING`,
  )
  const advanceEnv = db.prepare(
    `UPDATE monitor_environments SET status = 'missed', failures = @failures, next_checkin = @next,
       next_checkin_latest = @latest WHERE id = @id`,
  )
  return (e, now, budget) => {
    const schedule = scheduleOf(e)
    let expected: number | null = e.next_checkin
    let latest: number | null = e.next_checkin_latest
    let failures = e.failures
    let n = 0
    while (expected !== null && latest !== null && latest <= now && n < budget) {
      failures++
      const checkInId = derivedId('missed', e.id, expected)
      const report = failures >= e.failure_issue_threshold
      insertMissed.run({
        monitorId: e.monitor_id,
        environmentId: e.id,
        checkInId,
        expected,
        now,
        eventId: report ? checkInId : null,
        pending: report ? 1 : 0,
      })
      n++
      const next = safeNextRun(schedule, e.timezone, expected)
      expected = next
      latest = next === null ? null : next + e.checkin_margin * MINUTE
    }
    if (n > 0) advanceEnv.run({ id: e.id, failures, next: expected, latest })
    return n
  }
}

/** Writes one event inside the ingest transaction and counts its outcome. */
export type EventWriter = (e: EventToWrite) => EventWriteResult

/**
 * The check-in part of the ingest transaction (protocol.md §9 steps 2–5): upserts the monitor
 * from `monitor_config`, opens, heartbeats or closes the run, recomputes the next expected run,
 * and writes the error event of a failed run. Returns that event's result, if one was written.
 */
export function sqliteCheckInWriter(
  db: Database.Database,
): (
  c: CheckInToWrite,
  writeEvent: EventWriter,
  count: (o: OutcomeDelta) => void,
) => EventWriteResult | undefined {
  const getMonitor = db.prepare<[number, string], MonitorRow>(
    'SELECT * FROM monitors WHERE project_id = ? AND slug = ?',
  )
  const insertMonitor = db.prepare(
    `INSERT INTO monitors (project_id, slug, schedule_type, schedule_value, schedule_unit, timezone, checkin_margin,
       max_runtime, failure_issue_threshold, recovery_threshold, created_at, updated_at)
     VALUES (@projectId, @slug, @scheduleType, @scheduleValue, @scheduleUnit, @timezone, @checkinMargin,
       @maxRuntime, @failureIssueThreshold, @recoveryThreshold, @now, @now)`,
  )
  // The schedule is always replaced; other keys only when the config has them (Sentry).
  const updateMonitor = db.prepare(
    `UPDATE monitors SET schedule_type = @scheduleType, schedule_value = @scheduleValue,
       schedule_unit = @scheduleUnit, timezone = coalesce(@timezone, timezone),
       checkin_margin = coalesce(@checkinMargin, checkin_margin), max_runtime = coalesce(@maxRuntime, max_runtime),
       failure_issue_threshold = coalesce(@failureIssueThreshold, failure_issue_threshold),
       recovery_threshold = coalesce(@recoveryThreshold, recovery_threshold), updated_at = @now
     WHERE id = @id`,
  )
  const getEnv = db.prepare<[number, string], EnvRow>(
    'SELECT * FROM monitor_environments WHERE monitor_id = ? AND environment = ?',
  )
  const insertEnv = db.prepare<[number, string], EnvRow>(
    `INSERT INTO monitor_environments (monitor_id, environment, status) VALUES (?, ?, 'active') RETURNING *`,
  )
  const updateEnv = db.prepare(
    `UPDATE monitor_environments SET status = @status, failures = @failures, last_checkin = @received,
       next_checkin = @next, next_checkin_latest = @latest WHERE id = @id`,
  )
  const getRun = db.prepare<[number, string], RunRow>(
    'SELECT * FROM monitor_checkins WHERE monitor_id = ? AND check_in_id = ?',
  )
  const latestOpen = db.prepare<[number], RunRow>(
    `SELECT * FROM monitor_checkins WHERE environment_id = ? AND status = 'in_progress' ORDER BY id DESC LIMIT 1`,
  )
  const insertRun = db.prepare(
    `INSERT INTO monitor_checkins (monitor_id, environment_id, check_in_id, status, date_added, date_updated,
       expected_time, timeout_at, duration, release, trace_id)
     VALUES (@monitorId, @environmentId, @checkInId, @status, @dateAdded, @received, @expected, @timeoutAt,
       @duration, @release, @traceId)`,
  )
  const updateRun = db.prepare(
    `UPDATE monitor_checkins SET status = @status, date_updated = @received, timeout_at = @timeoutAt,
       duration = @duration WHERE id = @id`,
  )
  const linkEvent = db.prepare<[string, number, string]>(
    'UPDATE monitor_checkins SET event_id = ? WHERE monitor_id = ? AND check_in_id = ?',
  )
  const recordMissed = sqliteMissedRecorder(db)

  const upsertMonitor = (c: CheckInToWrite): MonitorRow | string => {
    const found = getMonitor.get(c.projectId, c.slug)
    const config: MonitorConfig | undefined = c.config?.ok === true ? c.config.config : undefined
    if (found === undefined && config === undefined) {
      return c.config === undefined ? 'monitor_not_found' : 'invalid_monitor_config'
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
      now: c.received,
    }
    if (found === undefined) {
      insertMonitor.run({
        ...columns,
        projectId: c.projectId,
        slug: c.slug,
        timezone: cfg.timezone ?? MONITOR_DEFAULTS.timezone,
        checkinMargin: cfg.checkinMargin ?? MONITOR_DEFAULTS.checkinMargin,
        maxRuntime: cfg.maxRuntime ?? MONITOR_DEFAULTS.maxRuntime,
        failureIssueThreshold: cfg.failureIssueThreshold ?? MONITOR_DEFAULTS.failureIssueThreshold,
        recoveryThreshold: cfg.recoveryThreshold ?? MONITOR_DEFAULTS.recoveryThreshold,
      })
    } else {
      updateMonitor.run({ ...columns, id: found.id })
    }
    return getMonitor.get(c.projectId, c.slug) as MonitorRow
  }

  return (c, writeEvent, count) => {
    const outcome = (kind: 'accepted' | 'rejected', reason = ''): undefined => {
      count({
        projectId: c.projectId,
        keyId: c.keyId,
        at: c.received,
        outcome: kind,
        reason,
        category: 'monitor',
        quantity: 1,
      })
      return undefined
    }
    const monitor = upsertMonitor(c)
    if (typeof monitor === 'string') return outcome('rejected', monitor)
    let env = getEnv.get(monitor.id, c.environment) ?? insertEnv.get(monitor.id, c.environment)
    if (env === undefined) throw new Error('monitor environment insert returned nothing')
    // Arriving after the deadline: the expected run was missed (the clock may not have ticked).
    if (env.next_checkin_latest !== null && env.next_checkin_latest <= c.received) {
      recordMissed({ ...monitor, ...env }, c.received, LATE_BUDGET)
      env = getEnv.get(monitor.id, c.environment) ?? env
    }

    let checkInId = c.checkInId
    let run: RunRow | undefined
    if (checkInId === ZERO_ID) {
      run = latestOpen.get(env.id)
      checkInId = run?.check_in_id ?? c.freshId
    } else {
      run = getRun.get(monitor.id, checkInId)
    }
    if (run !== undefined && run.environment_id !== env.id) {
      return outcome('rejected', 'checkin_environment_mismatch')
    }
    const decision = decideCheckIn(
      run === undefined
        ? undefined
        : { status: run.status, dateAdded: run.date_added, timeoutAt: run.timeout_at },
      env,
      c,
      monitor.max_runtime * MINUTE,
    )
    if (decision.kind === 'rejected') return outcome('rejected', decision.reason)
    if (decision.kind === 'unchanged') return outcome('accepted')
    const { failed, envStatus, failures } = decision
    const w = decision.run
    if (w.kind === 'insert')
      insertRun.run({
        monitorId: monitor.id,
        environmentId: env.id,
        checkInId,
        status: w.status,
        dateAdded: w.dateAdded,
        received: c.received,
        expected: env.next_checkin,
        timeoutAt: w.timeoutAt,
        duration: w.duration,
        release: c.release,
        traceId: c.traceId,
      })
    else if (run !== undefined)
      updateRun.run({
        id: run.id,
        status: w.status,
        received: c.received,
        timeoutAt: w.timeoutAt,
        duration: w.duration,
      })
    const next = safeNextRun(scheduleOf(monitor), monitor.timezone, c.received)
    updateEnv.run({
      id: env.id,
      status: envStatus,
      failures,
      received: c.received,
      next,
      latest: next === null ? null : next + monitor.checkin_margin * MINUTE,
    })
    outcome('accepted')
    if (!failed || c.failure === undefined || failures < monitor.failure_issue_threshold) return
    linkEvent.run(c.failure.eventId, monitor.id, checkInId)
    return writeEvent(c.failure)
  }
}

/** Monitor reads and the clock's bookkeeping on SQLite. */
export function sqliteMonitors(db: Database.Database): MonitorStore {
  const monitorsOf = db.prepare<[number], MonitorRow>(
    'SELECT * FROM monitors WHERE project_id = ? ORDER BY slug',
  )
  const envsOfProject = db.prepare<[number], EnvRow>(
    `SELECT e.* FROM monitor_environments e JOIN monitors m ON m.id = e.monitor_id
     WHERE m.project_id = ? ORDER BY e.environment`,
  )
  const oneMonitor = db.prepare<[number, string], MonitorRow>(
    'SELECT * FROM monitors WHERE project_id = ? AND slug = ?',
  )
  const envsOf = db.prepare<[number], EnvRow>(
    'SELECT * FROM monitor_environments WHERE monitor_id = ? ORDER BY environment',
  )
  const runs = db.prepare<
    { monitorId: number; env: string | null; before: number; beforeId: number; limit: number },
    RunRow & { environment: string }
  >(
    `SELECT c.*, e.environment FROM monitor_checkins c JOIN monitor_environments e ON e.id = c.environment_id
     WHERE c.monitor_id = @monitorId AND (@env IS NULL OR e.environment = @env)
       AND (c.date_added < @before OR (c.date_added = @before AND c.id < @beforeId))
     ORDER BY c.date_added DESC, c.id DESC LIMIT @limit`,
  )
  const acquire = db.prepare<[string, string, number, number, string, number]>(
    `INSERT INTO clock_leases (name, holder, expires_at, last_tick) VALUES (?, ?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
     WHERE clock_leases.holder = ? OR clock_leases.expires_at <= ?`,
  )
  const release = db.prepare<[string, string]>(
    'UPDATE clock_leases SET expires_at = 0 WHERE name = ? AND holder = ?',
  )
  const lease = db.prepare<
    [string],
    { name: string; holder: string; expires_at: number; last_tick: number }
  >('SELECT * FROM clock_leases WHERE name = ?')
  const noteTick = db.prepare<[number, string, string]>(
    'UPDATE clock_leases SET last_tick = max(last_tick, ?) WHERE name = ? AND holder = ?',
  )
  const dueTimeouts = db.prepare<
    [number, number],
    RunRow & { failures: number; threshold: number; project_id: number }
  >(
    `SELECT c.*, e.failures, m.failure_issue_threshold AS threshold, m.project_id FROM monitor_checkins c
     JOIN monitor_environments e ON e.id = c.environment_id JOIN monitors m ON m.id = c.monitor_id
     WHERE c.status = 'in_progress' AND c.timeout_at <= ? ORDER BY c.timeout_at LIMIT ?`,
  )
  const markTimeout = db.prepare<[number, string | null, number, number]>(
    `UPDATE monitor_checkins SET status = 'timeout', date_updated = ?, event_id = ?, event_pending = ?
     WHERE id = ? AND status = 'in_progress'`,
  )
  const failEnv = db.prepare<[string, number, number]>(
    'UPDATE monitor_environments SET status = ?, failures = failures + ? WHERE id = ?',
  )
  const dueEnvs = db.prepare<[number, number], DueEnvRow>(
    `SELECT e.*, m.schedule_type, m.schedule_value, m.schedule_unit, m.timezone, m.checkin_margin,
       m.max_runtime, m.failure_issue_threshold, m.project_id
     FROM monitor_environments e JOIN monitors m ON m.id = e.monitor_id
     WHERE e.next_checkin_latest IS NOT NULL AND e.next_checkin_latest <= ?
     ORDER BY e.next_checkin_latest LIMIT ?`,
  )
  const recordMissed = sqliteMissedRecorder(db)
  const pending = db.prepare<[number], PendingRow>(
    `SELECT c.*, e.environment, m.project_id, m.slug, m.schedule_type, m.schedule_value, m.schedule_unit,
       m.timezone, m.checkin_margin, m.max_runtime
     FROM monitor_checkins c JOIN monitor_environments e ON e.id = c.environment_id
     JOIN monitors m ON m.id = c.monitor_id
     WHERE c.event_pending = 1 ORDER BY c.id LIMIT ?`,
  )
  const reported = db.prepare<[number]>(
    'UPDATE monitor_checkins SET event_pending = 0 WHERE id = ?',
  )

  const recordFailures = db.transaction((now: number, limit: number): number => {
    let n = 0
    for (const r of dueTimeouts.all(now, limit)) {
      const report = r.failures + 1 >= r.threshold
      const eventId = report
        ? derivedId('timeout', r.project_id, r.monitor_id, r.check_in_id)
        : null
      markTimeout.run(now, eventId, report ? 1 : 0, r.id)
      failEnv.run('timeout', 1, r.environment_id)
      n++
    }
    for (const e of dueEnvs.all(now, limit)) {
      if (n >= limit) break
      n += recordMissed(e, now, limit - n)
    }
    return n
  })

  const markReported = db.transaction((ids: number[]) => {
    for (const id of ids) reported.run(id)
  })

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

  return {
    listMonitors: async (projectId) => {
      const envs = envsOfProject.all(projectId)
      return monitorsOf.all(projectId).map((m) => toMonitor(m, envs))
    },
    getMonitor: async (projectId, slug) => {
      const m = oneMonitor.get(projectId, slug)
      return m === undefined ? undefined : toMonitor(m, envsOf.all(m.id))
    },
    listCheckIns: async (monitorId, filter, page) => {
      const [before, beforeId] = decodeCursor(page.cursor)
      const rows = runs.all({
        monitorId,
        env: filter.environment ?? null,
        before,
        beforeId,
        limit: page.limit + 1,
      })
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
      acquire.run(name, holder, now + ttlMs, 0, holder, now).changes === 1,
    releaseLease: async (name, holder) => {
      release.run(name, holder)
    },
    getLease: async (name) => {
      const l = lease.get(name)
      return l === undefined
        ? undefined
        : { name: l.name, holder: l.holder, expiresAt: l.expires_at, lastTick: l.last_tick }
    },
    noteTick: async (name, holder, tick) => {
      noteTick.run(tick, name, holder)
    },
    // IMMEDIATE: the write lock up front, so the reads cannot race another node's writes.
    recordMonitorFailures: async (now, limit) => recordFailures.immediate(now, limit),
    pendingMonitorFailures: async (limit) =>
      pending
        .all(limit)
        .filter((r) => HEX32.test(r.event_id ?? ''))
        .map(toFailure),
    markMonitorFailuresReported: async (ids) => {
      markReported(ids)
    },
  }
}
