import type Database from 'better-sqlite3'
import { decideAlerts, mayAlert, type RuleConditionsRow } from '../alert-decisions.ts'
import { triageOnEvent } from '../issue-rules.ts'
import { admitEvents, overQuotaOutcome, type QuotaWindow, type UnitQuota } from '../quota-rules.ts'
import type {
  EventToWrite,
  EventWriteResult,
  IngestStore,
  IssueStatus,
  OutcomeDelta,
  WriteUnit,
} from '../types.ts'
import { sqliteCheckInWriter } from './monitors.ts'
import { sqliteHealthWriter } from './release-health.ts'

const HOUR = 3_600_000

/** A grouping hash with the triage columns of its issue. */
interface HashedIssueRow {
  issue_id: number
  status: IssueStatus
  for_review: number
  ignore_until: number | null
  ignore_until_seen: number | null
  times_seen: number
}

/** The columns of one `events` row, in insert order. */
type EventParams = [
  projectId: number,
  eventId: string,
  issueId: number,
  keyId: number,
  timestamp: number,
  received: number,
  level: string,
  release: string | null,
  environment: string | null,
  component: string | null,
  payload: string,
]

/** The project of a unit: one request, so one project for all its items. */
export const unitProject = (u: WriteUnit | undefined): number =>
  u?.events[0]?.projectId ?? u?.checkIns?.[0]?.projectId ?? 0

/**
 * The ingest write path on SQLite: every unit of a group commit in one transaction of prepared
 * statements. Idempotent on (project, event_id): a duplicate changes nothing.
 */
export function sqliteIngest(db: Database.Database): IngestStore {
  const eventExists = db.prepare<[number, string], { one: number }>(
    'SELECT 1 AS one FROM events WHERE project_id = ? AND event_id = ?',
  )
  // The issue's triage columns come along: the rules (issue-rules.ts) decide in code.
  const findHash = db.prepare<[number, string], HashedIssueRow>(
    `SELECT g.issue_id, i.status, i.for_review, i.ignore_until, i.ignore_until_seen, i.times_seen
     FROM grouphashes g JOIN issues i ON i.id = g.issue_id
     WHERE g.project_id = ? AND g.hash = ?`,
  )
  const insertIssue = db.prepare<
    [number, string, string, string, string | null, string | null, number, number, string],
    { id: number }
  >(
    `INSERT INTO issues (project_id, title, culprit, level, type, value, status, first_seen, last_seen, times_seen, grouping_version)
     VALUES (?, ?, ?, ?, ?, ?, 'unresolved', ?, ?, 1, ?) RETURNING id`,
  )
  const insertHash = db.prepare<[number, string, string, number]>(
    'INSERT INTO grouphashes (project_id, hash, grouping_version, issue_id) VALUES (?, ?, ?, ?)',
  )
  const touchIssue = db.prepare<
    [number, string, string, string, string, number, number | null, number | null, number]
  >(
    `UPDATE issues SET times_seen = times_seen + 1, last_seen = max(last_seen, ?),
       title = ?, culprit = ?, level = ?, status = ?, for_review = ?, ignore_until = ?,
       ignore_until_seen = ?
     WHERE id = ?`,
  )
  // Positional parameters: binding by name costs a lookup per parameter on the hottest insert.
  const insertEvent = db.prepare<EventParams>(
    `INSERT INTO events (project_id, event_id, issue_id, key_id, timestamp, received, level, release, environment, component, payload)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  const addOutcome = db.prepare(
    `INSERT INTO outcomes (project_id, key_id, hour, outcome, reason, category, quantity)
     VALUES (@projectId, @keyId, @hour, @outcome, @reason, @category, @quantity)
     ON CONFLICT (project_id, hour, key_id, outcome, reason, category) DO UPDATE SET quantity = quantity + excluded.quantity`,
  )

  const writeEvent = (e: EventToWrite): EventWriteResult => {
    if (eventExists.get(e.projectId, e.eventId) !== undefined) {
      return {
        eventId: e.eventId,
        issueId: 0,
        duplicate: true,
        issueCreated: false,
        regressed: false,
      }
    }
    let issueId: number
    let issueCreated = false
    let regressed = false
    const hash = findHash.get(e.projectId, e.hash)
    if (hash === undefined) {
      const row = insertIssue.get(
        e.projectId,
        e.title,
        e.culprit,
        e.level,
        e.type,
        e.value,
        e.received,
        e.received,
        e.groupingVersion,
      )
      if (row === undefined) throw new Error('issue insert returned nothing')
      issueId = row.id
      insertHash.run(e.projectId, e.hash, e.groupingVersion, issueId)
      issueCreated = true
    } else {
      issueId = hash.issue_id
      const t = triageOnEvent(
        {
          status: hash.status,
          forReview: hash.for_review === 1,
          ignoreUntil: hash.ignore_until,
          ignoreUntilSeen: hash.ignore_until_seen,
          timesSeen: hash.times_seen,
        },
        e.received,
      )
      regressed = t.regressed
      touchIssue.run(
        e.received,
        e.title,
        e.culprit,
        e.level,
        t.status,
        t.forReview ? 1 : 0,
        t.ignoreUntil,
        t.ignoreUntilSeen,
        issueId,
      )
    }
    insertEvent.run(
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
    )
    return { eventId: e.eventId, issueId, duplicate: false, issueCreated, regressed }
  }

  // The pages read these summaries (migration 007), never a scan of `events`.
  const addFacet = db.prepare<[number, string, string, number]>(
    'INSERT OR IGNORE INTO issue_facets (issue_id, kind, value, project_id) VALUES (?, ?, ?, ?)',
  )
  const addHour = db.prepare<[number, number, number]>(
    `INSERT INTO issue_hours (issue_id, hour, events) VALUES (?, ?, ?)
     ON CONFLICT (issue_id, hour) DO UPDATE SET events = events + excluded.events`,
  )

  const writeOutcome = (o: OutcomeDelta): void => {
    addOutcome.run({
      projectId: o.projectId,
      keyId: o.keyId,
      hour: Math.floor(o.at / HOUR) * HOUR,
      outcome: o.outcome,
      reason: o.reason,
      category: o.category,
      quantity: o.quantity,
    })
  }

  // Each event's own outcome is decided here, where duplicates become known. A resend of a
  // stored event is `duplicate` (Relay: invalid/duplicate), apart from rejections: it is stored.
  const eventOutcome = (e: EventToWrite, r: EventWriteResult): OutcomeDelta => ({
    projectId: e.projectId,
    keyId: e.keyId,
    at: e.received,
    outcome: r.duplicate ? 'duplicate' : 'accepted',
    reason: '',
    category: 'error',
    quantity: 1,
  })

  const writeHealth = sqliteHealthWriter(db)
  const writeCheckIn = sqliteCheckInWriter(db)
  const rulesOf = db.prepare<[number], RuleConditionsRow>(
    'SELECT id, project_id, conditions FROM alert_rules WHERE project_id = ? AND deleted_at IS NULL',
  )
  const addTrigger = db.prepare<[number, number, number, string, string, string, number]>(
    `INSERT OR IGNORE INTO alert_triggers (rule_id, project_id, issue_id, trigger_kind, trigger_id, event_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  )
  /** The alert outbox rows of the group's new issues and regressions (alert-decisions.ts). */
  const recordAlerts = (stored: { projectId: number; r: EventWriteResult }[], now: number) => {
    const candidates = stored.filter((s) => mayAlert(s.r))
    if (candidates.length === 0) return
    const rules = [...new Set(candidates.map((c) => c.projectId))].flatMap((p) => rulesOf.all(p))
    for (const d of decideAlerts(rules, candidates))
      addTrigger.run(d.ruleId, d.projectId, d.issueId, d.kind, d.triggerId, d.eventId, now)
  }
  const quotaOf = db.prepare<[number], { events: number; window_seconds: number }>(
    'SELECT events, window_seconds FROM project_quotas WHERE project_id = ?',
  )
  const windowOf = db.prepare<
    [number],
    { window_start: number; window_seconds: number; used: number; limited: number }
  >('SELECT window_start, window_seconds, used, limited FROM quota_windows WHERE project_id = ?')
  const saveWindow = db.prepare<[number, number, number, number, number]>(
    `INSERT INTO quota_windows (project_id, window_start, window_seconds, used, limited)
     VALUES (?, ?, ?, ?, ?) ON CONFLICT (project_id) DO UPDATE SET window_start = excluded.window_start,
       window_seconds = excluded.window_seconds, used = excluded.used, limited = excluded.limited`,
  )
  /**
   * The quota step of one unit, inside the transaction (one writer: the rows read here cannot
   * change before the commit): its project's new events beyond the quota are taken out.
   * Windows are kept per group and written once at its end.
   */
  const admit = (
    u: WriteUnit,
    windows: Map<number, QuotaWindow>,
  ): { events: EventToWrite[]; quota?: UnitQuota } => {
    const projectId = u.events[0]?.projectId
    if (projectId === undefined) return { events: u.events }
    const q = quotaOf.get(projectId)
    if (q === undefined) return { events: u.events }
    let window = windows.get(projectId)
    if (window === undefined) {
      const r = windowOf.get(projectId)
      if (r !== undefined)
        window = {
          start: r.window_start,
          seconds: r.window_seconds,
          used: r.used,
          limited: r.limited === 1,
        }
    }
    const seen = new Set<string>()
    const isFresh = (e: EventToWrite): boolean => {
      if (seen.has(e.eventId)) return false
      seen.add(e.eventId)
      return eventExists.get(e.projectId, e.eventId) === undefined
    }
    const a = admitEvents(
      { events: q.events, windowSeconds: q.window_seconds },
      window,
      u.events,
      isFresh,
    )
    windows.set(projectId, a.window)
    return { events: u.events.filter((_, i) => a.keep[i]), quota: a.unit }
  }

  // Counters are summed per group commit first: one upsert per distinct counter, not per item.
  const writeAll = db.transaction((units: WriteUnit[]) => {
    const counters = new Map<string, OutcomeDelta>()
    const count = (o: OutcomeDelta): void => {
      const hour = Math.floor(o.at / HOUR) * HOUR
      const k = `${o.projectId}\0${o.keyId}\0${hour}\0${o.outcome}\0${o.reason}\0${o.category}`
      const c = counters.get(k)
      if (c === undefined) counters.set(k, { ...o, at: hour })
      else c.quantity += o.quantity
    }
    // Like the counters, the page summaries are deduplicated per group commit: one statement
    // per distinct (issue, kind, value) and per distinct (issue, hour).
    const facets = new Map<string, [number, string, string, number]>()
    const hours = new Map<string, [number, number, number]>()
    const facet = (issueId: number, kind: string, value: string | null, projectId: number) => {
      if (value === null || value === '') return
      const k = `${issueId}\0${kind}\0${value}`
      if (!facets.has(k)) facets.set(k, [issueId, kind, value, projectId])
    }
    const summarise = (e: EventToWrite, r: EventWriteResult): void => {
      if (r.duplicate) return
      facet(r.issueId, 'environment', e.environment, e.projectId)
      facet(r.issueId, 'release', e.release, e.projectId)
      facet(r.issueId, 'component', e.component, e.projectId)
      const hour = Math.floor(e.received / HOUR) * HOUR
      const k = `${r.issueId}\0${hour}`
      const h = hours.get(k)
      if (h === undefined) hours.set(k, [r.issueId, hour, 1])
      else h[2] += 1
    }
    const windows = new Map<number, QuotaWindow>()
    const results = units.map((u) => {
      const admitted = admit(u, windows)
      const events = admitted.events.map((e) => {
        const r = writeEvent(e)
        count(eventOutcome(e, r))
        summarise(e, r)
        return r
      })
      for (const o of u.outcomes) count(o)
      const refused = admitted.quota?.refused ?? 0
      const first = u.events[0]
      if (refused > 0 && first !== undefined) count(overQuotaOutcome(first, refused))
      else for (const o of u.outcomesIfAdmitted ?? []) count(o)
      writeHealth(u)
      const countedEvent = (e: EventToWrite): EventWriteResult => {
        const r = writeEvent(e)
        count(eventOutcome(e, r))
        summarise(e, r)
        return r
      }
      for (const c of u.checkIns ?? []) {
        const r = writeCheckIn(c, countedEvent, count)
        if (r !== undefined) events.push(r)
      }
      return admitted.quota === undefined ? { events } : { events, quota: admitted.quota }
    })
    for (const [projectId, w] of windows)
      saveWindow.run(projectId, w.start, w.seconds, w.used, w.limited ? 1 : 0)
    const stored = results.flatMap((u, n) =>
      u.events.map((r) => ({ projectId: unitProject(units[n]), r })),
    )
    recordAlerts(stored, Date.now())
    for (const o of counters.values()) writeOutcome(o)
    for (const f of facets.values()) addFacet.run(...f)
    for (const h of hours.values()) addHour.run(...h)
    return results
  })

  // IMMEDIATE takes the write lock up front: the reads inside then never race another
  // connection's writes into SQLITE_BUSY_SNAPSHOT.
  return { write: async (units) => writeAll.immediate(units) }
}
