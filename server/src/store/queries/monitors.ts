import { derivedId } from '../../schedule/ids.ts'
import type { CheckInRecord, MonitorFailure, MonitorStore } from '../monitor-types.ts'
import {
  type DueEnvRow,
  decodeCursor,
  type EnvRow,
  HEX32,
  type MonitorRow,
  type PendingRow,
  type RunRow,
  scheduleOf,
  toMonitor,
} from '../rows/monitors.ts'
import { inList } from '../sql/in-list.ts'
import { type SqlPort, type Steps, step } from '../sql/port.ts'
import { raw, sql } from '../sql/statement.ts'
import { missedRunSteps } from './check-ins.ts'

/** A run waiting for its error event, as the clock reports it. */
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

const toCheckIn = (r: RunRow & { environment: string }): CheckInRecord => ({
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
})

type TimeoutRow = RunRow & { failures: number; threshold: number; project_id: number }

/**
 * Monitor reads and the clock's bookkeeping (leases, timeouts, missed runs, pending error
 * events), written once. The clock's transaction is IMMEDIATE on SQLite (the write lock up
 * front, so its reads cannot race another node's writes) and locks the rows it changes
 * `FOR UPDATE` on PostgreSQL.
 */
export function monitorQueries(db: SqlPort): MonitorStore {
  const pg = db.dialect === 'postgres'
  function* recordFailures(now: number, limit: number): Steps<number> {
    let n = 0
    const timeouts = yield* step.all<TimeoutRow>(
      sql`SELECT c.*, e.failures, m.failure_issue_threshold AS threshold, m.project_id
          FROM monitor_checkins c JOIN monitor_environments e ON e.id = c.environment_id
          JOIN monitors m ON m.id = c.monitor_id
          WHERE c.status = 'in_progress' AND c.timeout_at <= ${now} ORDER BY c.timeout_at LIMIT ${limit}
          ${raw(pg ? 'FOR UPDATE OF c, e' : '')}`,
    )
    for (const r of timeouts) {
      // This timeout is one more failure: its error event is reported from the threshold on.
      const report = r.failures + 1 >= r.threshold
      const eventId = report
        ? derivedId('timeout', r.project_id, r.monitor_id, r.check_in_id)
        : null
      yield* step.run(
        sql`UPDATE monitor_checkins SET status = 'timeout', date_updated = ${now}, event_id = ${eventId},
              event_pending = ${report ? 1 : 0}
            WHERE id = ${r.id} AND status = 'in_progress'`,
      )
      yield* step.run(
        sql`UPDATE monitor_environments SET status = ${'timeout'}, failures = failures + ${1}
            WHERE id = ${r.environment_id}`,
      )
      n++
    }
    const due = yield* step.all<DueEnvRow>(
      sql`SELECT e.*, m.schedule_type, m.schedule_value, m.schedule_unit, m.timezone, m.checkin_margin,
            m.max_runtime, m.failure_issue_threshold, m.project_id
          FROM monitor_environments e JOIN monitors m ON m.id = e.monitor_id
          WHERE e.next_checkin_latest IS NOT NULL AND e.next_checkin_latest <= ${now}
          ORDER BY e.next_checkin_latest LIMIT ${limit} ${raw(pg ? 'FOR UPDATE OF e' : '')}`,
    )
    for (const e of due) {
      if (n >= limit) break
      n += yield* missedRunSteps(e, now, limit - n)
    }
    return n
  }
  const monitorBySlug = (projectId: number, slug: string) =>
    db.first<MonitorRow>(
      sql`SELECT * FROM monitors WHERE project_id = ${projectId} AND slug = ${slug}`,
    )
  return {
    listMonitors: async (projectId) => {
      const envs = await db.all<EnvRow>(
        sql`SELECT e.* FROM monitor_environments e JOIN monitors m ON m.id = e.monitor_id
            WHERE m.project_id = ${projectId} ORDER BY e.environment`,
      )
      const monitors = await db.all<MonitorRow>(
        sql`SELECT * FROM monitors WHERE project_id = ${projectId} ORDER BY slug`,
      )
      return monitors.map((m) => toMonitor(m, envs))
    },
    getMonitor: async (projectId, slug) => {
      const m = await monitorBySlug(projectId, slug)
      if (m === undefined) return undefined
      const envs = await db.all<EnvRow>(
        sql`SELECT * FROM monitor_environments WHERE monitor_id = ${m.id} ORDER BY environment`,
      )
      return toMonitor(m, envs)
    },
    listCheckIns: async (monitorId, filter, page) => {
      // Keyset paging on (date_added, id), newest first.
      const [before, beforeId] = decodeCursor(page.cursor)
      const env = sql`CAST(${filter.environment ?? null} AS TEXT)`
      const rows = await db.all<RunRow & { environment: string }>(
        sql`SELECT c.*, e.environment FROM monitor_checkins c
            JOIN monitor_environments e ON e.id = c.environment_id
            WHERE c.monitor_id = ${monitorId} AND (${env} IS NULL OR e.environment = ${env})
              AND (c.date_added < ${before} OR (c.date_added = ${before} AND c.id < ${beforeId}))
            ORDER BY c.date_added DESC, c.id DESC LIMIT ${page.limit + 1}`,
      )
      const list = rows.slice(0, page.limit)
      const last = list.at(-1)
      const checkIns = list.map(toCheckIn)
      return rows.length > page.limit && last !== undefined
        ? { checkIns, next: `${last.date_added}:${last.id}` }
        : { checkIns }
    },
    acquireLease: async (name, holder, now, ttlMs) =>
      (await db.run(
        sql`INSERT INTO clock_leases (name, holder, expires_at, last_tick)
            VALUES (${name}, ${holder}, ${now + ttlMs}, 0)
            ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
            WHERE clock_leases.holder = ${holder} OR clock_leases.expires_at <= ${now}`,
      )) === 1,
    releaseLease: async (name, holder) => {
      await db.run(
        sql`UPDATE clock_leases SET expires_at = 0 WHERE name = ${name} AND holder = ${holder}`,
      )
    },
    getLease: async (name) => {
      const l = await db.first<{
        name: string
        holder: string
        expires_at: number
        last_tick: number
      }>(sql`SELECT * FROM clock_leases WHERE name = ${name}`)
      return l === undefined
        ? undefined
        : { name: l.name, holder: l.holder, expiresAt: l.expires_at, lastTick: l.last_tick }
    },
    noteTick: async (name, holder, tick) => {
      // The larger of two values: SQLite's two-argument max(), PostgreSQL's GREATEST.
      await db.run(
        sql`UPDATE clock_leases SET last_tick = ${raw(pg ? 'GREATEST' : 'max')}(last_tick, ${tick})
            WHERE name = ${name} AND holder = ${holder}`,
      )
    },
    recordMonitorFailures: (now, limit) => db.transaction(() => recordFailures(now, limit)),
    pendingMonitorFailures: async (limit) =>
      (
        await db.all<PendingRow>(
          sql`SELECT c.*, e.environment, m.project_id, m.slug, m.schedule_type, m.schedule_value,
                m.schedule_unit, m.timezone, m.checkin_margin, m.max_runtime
              FROM monitor_checkins c JOIN monitor_environments e ON e.id = c.environment_id
              JOIN monitors m ON m.id = c.monitor_id
              WHERE c.event_pending = 1 ORDER BY c.id LIMIT ${limit}`,
        )
      )
        .filter((r) => HEX32.test(r.event_id ?? ''))
        .map(toFailure),
    markMonitorFailuresReported: async (ids) => {
      if (ids.length === 0) return
      await db.run(
        sql`UPDATE monitor_checkins SET event_pending = 0 WHERE ${inList(db.dialect, 'id', ids, 'bigint')}`,
      )
    },
  }
}
