import type pg from 'pg'
import { decideAlerts, mayAlert, type RuleConditionsRow } from '../alert-decisions.ts'
import { type FoundIssue, type GroupingIo, hashRuns, upsertGroup } from '../grouping-upsert.ts'
import { IssueSummaries } from '../issue-summaries.ts'
import { eventOutcome, OutcomeCounters } from '../outcome-counters.ts'
import { admitEvents, overQuotaOutcome, type QuotaWindow, type UnitQuota } from '../quota-rules.ts'
import type {
  EventToWrite,
  EventWriteResult,
  IngestStore,
  IssueStatus,
  WriteUnit,
  WriteUnitResult,
} from '../types.ts'
import { all, type Db, first, run, transaction } from './db.ts'
import { LockTurns } from './lock-turns.ts'
import { lockMonitors, monitorLockKeys, pgWriteCheckIn } from './monitors.ts'
import { pgHealthWriter } from './release-health.ts'

/** A grouping hash with the triage columns of its issue. */
interface HashedIssueRow {
  issue_id: number
  status: IssueStatus
  for_review: number
  ignore_until: number | null
  ignore_until_seen: number | null
  times_seen: number
}

const byHash = (a: { projectId: number; hash: string }, b: { projectId: number; hash: string }) =>
  a.projectId - b.projectId || (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0)

/** The issue of an event's (project, hash) with its triage columns, locked for update. */
async function findHash(c: Db, ev: EventToWrite): Promise<FoundIssue | undefined> {
  const h = await first<HashedIssueRow>(
    c,
    `SELECT g.issue_id, i.status, i.for_review, i.ignore_until, i.ignore_until_seen, i.times_seen
           FROM grouphashes g JOIN issues i ON i.id = g.issue_id
           WHERE g.project_id = $1 AND g.hash = $2 FOR UPDATE OF i`,
    [ev.projectId, ev.hash],
  )
  return h === undefined
    ? undefined
    : {
        issueId: h.issue_id,
        status: h.status,
        forReview: h.for_review === 1,
        ignoreUntil: h.ignore_until,
        ignoreUntilSeen: h.ignore_until_seen,
        timesSeen: h.times_seen,
      }
}

/** Creates the issue of a new hash; undefined when another transaction claimed the hash. */
async function createIssue(c: Db, ev: EventToWrite): Promise<number | undefined> {
  // One round trip: the issue and the claim of its hash. When another transaction
  // claimed the hash first, the new issue row is removed again and the event joins the
  // winner's issue (grouping-upsert.ts).
  const r = await first<{ id: number; claimed: number | null }>(
    c,
    `WITH issue AS (
             INSERT INTO issues (project_id, title, culprit, level, type, value, status, first_seen, last_seen, times_seen, grouping_version)
             VALUES ($1, $2, $3, $4, $5, $6, 'unresolved', $7, $7, 1, $8) RETURNING id),
           claim AS (
             INSERT INTO grouphashes (project_id, hash, grouping_version, issue_id)
             SELECT $1, $9, $8, id FROM issue
             ON CONFLICT (project_id, hash) DO NOTHING RETURNING issue_id)
           SELECT (SELECT id FROM issue) AS id, (SELECT issue_id FROM claim) AS claimed`,
    [
      ev.projectId,
      ev.title,
      ev.culprit,
      ev.level,
      ev.type,
      ev.value,
      ev.received,
      ev.groupingVersion,
      ev.hash,
    ],
  )
  if (r === undefined) throw new Error('issue insert returned nothing')
  if (r.claimed !== null) return r.id
  await run(c, 'DELETE FROM issues WHERE id = $1', [r.id])
  return undefined
}

/** The grouping rule's storage steps (grouping-upsert.ts) on the open transaction `c`. */
const groupingIo = (c: Db): GroupingIo => ({
  findHash: (ev) => findHash(c, ev),
  createIssue: (ev) => createIssue(c, ev),
  touchIssue: async (t) => {
    await run(
      c,
      `UPDATE issues SET times_seen = times_seen + $1, last_seen = GREATEST(last_seen, $2),
         title = $3, culprit = $4, level = $5, status = $6, for_review = $7, ignore_until = $8,
         ignore_until_seen = $9
       WHERE id = $10`,
      [
        t.count,
        t.lastSeen,
        t.last.title,
        t.last.culprit,
        t.last.level,
        t.state.status,
        t.state.forReview ? 1 : 0,
        t.state.ignoreUntil,
        t.state.ignoreUntilSeen,
        t.issueId,
      ],
    )
  },
})

const EVENT_COLUMNS =
  'project_id, event_id, issue_id, key_id, timestamp, received, level, release, environment, component, payload'
const EVENT_TYPES =
  'bigint[], text[], bigint[], bigint[], bigint[], bigint[], text[], text[], text[], text[], text[]'

/** Inserts events with one statement (arrays unnested), whatever their number. */
async function insertEvents(c: Db, rows: { e: EventToWrite; issueId: number }[]): Promise<void> {
  if (rows.length === 0) return
  const cols: unknown[][] = Array.from({ length: 11 }, () => [])
  for (const { e, issueId } of rows) {
    const values = [
      e.projectId,
      e.eventId,
      issueId,
      e.keyId,
      e.timestamp,
      e.received,
      e.level,
      e.release,
      e.environment,
      e.component,
      e.payload,
    ]
    for (const [i, v] of values.entries()) cols[i]?.push(v)
  }
  const params = cols.map((_, i) => `$${i + 1}::${EVENT_TYPES.split(', ')[i]}`).join(', ')
  await run(c, `INSERT INTO events (${EVENT_COLUMNS}) SELECT * FROM unnest(${params})`, cols)
}

/**
 * Writes a group's events (sorted by (project, hash); `isFresh`: the id was claimed for this
 * copy, see claimIds) with a fixed number of statements per distinct hash instead of per
 * event: per hash the grouping rule of grouping-upsert.ts (one locked read and one `UPDATE`
 * carrying the count and the triage state folded in code, the same rules as one by one), then
 * one insert of all events. Measured on the bench's single-hash load: ≈4 round trips per event
 * before.
 */
async function writeEvents(
  c: Db,
  events: EventToWrite[],
  isFresh: boolean[],
): Promise<EventWriteResult[]> {
  const results: EventWriteResult[] = events.map((e) => ({
    eventId: e.eventId,
    issueId: 0,
    duplicate: true,
    issueCreated: false,
    regressed: false,
  }))
  if (events.length === 0) return results
  // A copy not claimed now was stored by an earlier group (or another node), or is a second
  // copy in this group.
  const claimed = new Set(events.filter((_, i) => isFresh[i] === true))
  const io = groupingIo(c)
  for (const hashRun of hashRuns(events, (e) => !claimed.has(e), true)) {
    const grouped = await upsertGroup(
      io,
      hashRun.map((i) => events[i] as EventToWrite),
    )
    hashRun.forEach((i, n) => {
      Object.assign(results[i] as EventWriteResult, grouped[n], { duplicate: false })
    })
  }
  const toInsert: { e: EventToWrite; issueId: number }[] = []
  events.forEach((e, i) => {
    const r = results[i] as EventWriteResult
    if (!r.duplicate) toInsert.push({ e, issueId: r.issueId })
  })
  await insertEvents(c, toInsert)
  return results
}

/**
 * Claims the idempotency keys of the group's events in one statement; returns per event
 * whether it is new (the first copy of an id no earlier group stored).
 */
async function claimIds(c: Db, events: readonly EventToWrite[]): Promise<boolean[]> {
  if (events.length === 0) return []
  const claimed = await all<{ project_id: number; event_id: string }>(
    c,
    `INSERT INTO event_ids (project_id, event_id, received)
     SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[])
     ON CONFLICT (project_id, event_id) DO NOTHING RETURNING project_id, event_id`,
    [events.map((e) => e.projectId), events.map((e) => e.eventId), events.map((e) => e.received)],
  )
  const open = new Set(claimed.map((r) => `${r.project_id}\0${r.event_id}`))
  return events.map((e) => open.delete(`${e.projectId}\0${e.eventId}`))
}

interface QuotaRow {
  project_id: number
  events: number
  window_seconds: number
  window_start: number | null
  w_seconds: number | null
  used: number | null
  limited: number | null
}

/**
 * Locks the quota rows of the group's projects (one statement, in project order, before any
 * other lock but the monitors', so every group takes them in one order) and reads their
 * windows. A group whose projects have no quota costs this one statement.
 */
async function lockQuotas(c: Db, units: readonly WriteUnit[]): Promise<Map<number, QuotaRow>> {
  const ids = [...new Set(units.flatMap((u) => u.events.map((e) => e.projectId)))]
  if (ids.length === 0) return new Map()
  const locked = await all<Pick<QuotaRow, 'project_id' | 'events' | 'window_seconds'>>(
    c,
    `SELECT project_id, events, window_seconds FROM project_quotas
     WHERE project_id = ANY($1::bigint[]) ORDER BY project_id FOR UPDATE`,
    [ids],
  )
  if (locked.length === 0) return new Map()
  // Read after the lock, in a statement of its own: READ COMMITTED re-reads only the locked
  // rows when a lock was waited for, so a join here would see the window from before the
  // previous holder's commit (measured: every group then opened a window of its own).
  const windows = await all<{
    project_id: number
    window_start: number
    window_seconds: number
    used: number
    limited: number
  }>(
    c,
    'SELECT project_id, window_start, window_seconds, used, limited FROM quota_windows WHERE project_id = ANY($1::bigint[])',
    [locked.map((r) => r.project_id)],
  )
  const byId = new Map(windows.map((w) => [w.project_id, w]))
  const rows: QuotaRow[] = locked.map((q) => {
    const w = byId.get(q.project_id)
    return {
      ...q,
      window_start: w?.window_start ?? null,
      w_seconds: w?.window_seconds ?? null,
      used: w?.used ?? null,
      limited: w?.limited ?? null,
    }
  })
  return new Map(rows.map((r) => [r.project_id, r]))
}

/**
 * Charges each unit's new events against its project's quota in unit order (quota-rules.ts),
 * gives back the claims of refused events (they were never stored) and writes the windows.
 * Returns per unit what the charge met and per event (in `flat` order) whether it is kept.
 */
async function chargeUnits(
  c: Db,
  units: readonly WriteUnit[],
  quotas: Map<number, QuotaRow>,
  flat: readonly { e: EventToWrite; unit: number }[],
  fresh: readonly boolean[],
): Promise<{ quota: (UnitQuota | undefined)[]; keep: boolean[] }> {
  const keep = flat.map(() => true)
  const quota: (UnitQuota | undefined)[] = units.map(() => undefined)
  if (quotas.size === 0) return { quota, keep }
  const windows = new Map<number, QuotaWindow>()
  for (const [id, r] of quotas)
    if (r.window_start !== null)
      windows.set(id, {
        start: r.window_start,
        seconds: r.w_seconds ?? r.window_seconds,
        used: r.used ?? 0,
        limited: r.limited === 1,
      })
  const refused: EventToWrite[] = []
  let at = 0
  for (const [n, u] of units.entries()) {
    const from = at
    at += u.events.length
    const q = quotas.get(u.events[0]?.projectId ?? -1)
    if (q === undefined) continue
    const a = admitEvents(
      { events: q.events, windowSeconds: q.window_seconds },
      windows.get(q.project_id),
      u.events,
      (_, i) => fresh[from + i] === true,
    )
    windows.set(q.project_id, a.window)
    quota[n] = a.unit
    a.keep.forEach((k, i) => {
      if (k) return
      keep[from + i] = false
      const e = u.events[i] as EventToWrite
      if (fresh[from + i] === true) refused.push(e)
    })
  }
  if (refused.length > 0)
    await run(
      c,
      `DELETE FROM event_ids WHERE (project_id, event_id) IN
         (SELECT * FROM unnest($1::bigint[], $2::text[]))`,
      [refused.map((e) => e.projectId), refused.map((e) => e.eventId)],
    )
  for (const [id, w] of windows)
    await run(
      c,
      `INSERT INTO quota_windows (project_id, window_start, window_seconds, used, limited)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (project_id) DO UPDATE SET
         window_start = excluded.window_start, window_seconds = excluded.window_seconds,
         used = excluded.used, limited = excluded.limited`,
      [id, w.start, w.seconds, w.used, w.limited ? 1 : 0],
    )
  return { quota, keep }
}

/** The alert outbox rows of the group's new issues and regressions (alert-decisions.ts). */
async function recordAlerts(
  c: Db,
  stored: { projectId: number; r: EventWriteResult }[],
  now: number,
): Promise<void> {
  const candidates = stored.filter((s) => mayAlert(s.r))
  if (candidates.length === 0) return
  const rules = await all<RuleConditionsRow>(
    c,
    `SELECT id, project_id, conditions FROM alert_rules
     WHERE project_id = ANY($1::bigint[]) AND deleted_at IS NULL`,
    [[...new Set(candidates.map((x) => x.projectId))]],
  )
  const d = decideAlerts(rules, candidates)
  if (d.length === 0) return
  await run(
    c,
    `INSERT INTO alert_triggers (rule_id, project_id, issue_id, trigger_kind, trigger_id, event_id, created_at)
     SELECT r, p, i, k, t, e, $7 FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::text[])
       AS x(r, p, i, k, t, e)
     ON CONFLICT (rule_id, issue_id, trigger_kind, trigger_id) DO NOTHING`,
    [
      d.map((x) => x.ruleId),
      d.map((x) => x.projectId),
      d.map((x) => x.issueId),
      d.map((x) => x.kind),
      d.map((x) => x.triggerId),
      d.map((x) => x.eventId),
      now,
    ],
  )
}

/**
 * The ingest write path on PostgreSQL: every unit of a group commit in one transaction, on
 * one pooled connection, so several groups commit at once (the committer's `maxInFlight` is
 * the pool size). Lock order is stable: the group's events are written in (project, hash)
 * order, counters are upserted in key order; a deadlock or
 * serialization failure reruns the transaction (db.ts), and a group that still fails is
 * retried unit by unit by the group committer.
 */
export function pgIngest(pool: pg.Pool): IngestStore {
  const turns = new LockTurns()
  const writeGroup = (units: WriteUnit[], lockTaken: () => void) =>
    transaction(pool, async (c) => {
      const counters = new OutcomeCounters()
      const summaries = new IssueSummaries()
      const writeHealth = pgHealthWriter(c)
      const countedEvent = async (e: EventToWrite): Promise<EventWriteResult> => {
        const r = (await writeEvents(c, [e], await claimIds(c, [e])))[0] as EventWriteResult
        counters.add(eventOutcome(e, r))
        summaries.add(e, r)
        return r
      }
      // Monitors before issues: every group takes its locks in this one order.
      await lockMonitors(
        c,
        units.flatMap((u) => u.checkIns ?? []),
      )
      lockTaken()
      // Quota rows first, in project order, then the idempotency claims: every group takes
      // its locks in this one order.
      const quotas = await lockQuotas(c, units)
      const flat = units.flatMap((u, unit) => u.events.map((e, index) => ({ e, unit, index })))
      const fresh = await claimIds(
        c,
        flat.map((o) => o.e),
      )
      const charged = await chargeUnits(c, units, quotas, flat, fresh)
      // Events in (project, hash) order across the whole group (stable: one hash's events
      // keep their order), so concurrent groups lock issues in the same order.
      const events: EventWriteResult[][] = units.map(() => [])
      const ordered = flat
        .map((o, n) => ({ ...o, fresh: fresh[n] === true }))
        .filter((_, n) => charged.keep[n])
        .sort((x, y) => byHash(x.e, y.e))
      const written = await writeEvents(
        c,
        ordered.map((o) => o.e),
        ordered.map((o) => o.fresh),
      )
      ordered.forEach(({ e, unit, index }, n) => {
        const r = written[n] as EventWriteResult
        counters.add(eventOutcome(e, r))
        summaries.add(e, r)
        const list = events[unit]
        if (list !== undefined) list[index] = r
      })
      const results: WriteUnitResult[] = []
      for (const [n, u] of units.entries()) {
        // Refused events left holes: the unit's results keep its stored events in order.
        const own = (events[n] ?? []).filter((r) => r !== undefined)
        for (const o of u.outcomes) counters.add(o)
        const q = charged.quota[n]
        const first = u.events[0]
        if (q !== undefined && q.refused > 0 && first !== undefined)
          counters.add(overQuotaOutcome(first, q.refused))
        else for (const o of u.outcomesIfAdmitted ?? []) counters.add(o)
        await writeHealth(u)
        for (const ci of u.checkIns ?? []) {
          const r = await pgWriteCheckIn(c, ci, countedEvent, (o) => counters.add(o))
          if (r !== undefined) own.push(r)
        }
        results.push(q === undefined ? { events: own } : { events: own, quota: q })
      }
      const unitProject = (u: WriteUnit) =>
        u.events[0]?.projectId ?? u.checkIns?.[0]?.projectId ?? 0
      await recordAlerts(
        c,
        results.flatMap((r, n) =>
          r.events.map((e) => ({ projectId: unitProject(units[n] as WriteUnit), r: e })),
        ),
        Date.now(),
      )
      for (const o of counters.sorted())
        await run(
          c,
          `INSERT INTO outcomes (project_id, key_id, hour, outcome, reason, category, quantity)
             VALUES ($1, $2, $3, $4, $5, $6, $7)
             ON CONFLICT (project_id, hour, key_id, outcome, reason, category)
             DO UPDATE SET quantity = outcomes.quantity + excluded.quantity`,
          [o.projectId, o.keyId, o.at, o.outcome, o.reason, o.category, o.quantity],
        )
      await writeSummaries(c, summaries)
      return results
    })
  return {
    write: async (units) => {
      // Check-ins of one monitor lock in the order this node received them (lock-turns.ts).
      const taken = await turns.enter(monitorLockKeys(units.flatMap((u) => u.checkIns ?? [])))
      try {
        return await writeGroup(units, taken)
      } finally {
        taken()
      }
    },
  }
}

/** The group's page summaries (migration 004), one statement per table, rows in key order. */
async function writeSummaries(c: Db, s: IssueSummaries): Promise<void> {
  const facets = s.facets()
  if (facets.length > 0)
    await run(
      c,
      `INSERT INTO issue_facets (issue_id, kind, value, project_id)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[])
       ON CONFLICT DO NOTHING`,
      [0, 1, 2, 3].map((i) => facets.map((f) => f[i])),
    )
  const hours = s.hours()
  if (hours.length > 0)
    await run(
      c,
      `INSERT INTO issue_hours (issue_id, hour, events)
       SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[])
       ON CONFLICT (issue_id, hour) DO UPDATE SET events = issue_hours.events + excluded.events`,
      [0, 1, 2].map((i) => hours.map((h) => h[i])),
    )
}
