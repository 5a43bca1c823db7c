import type Database from 'better-sqlite3'
import type { RuleConditionsRow } from '../alert-decisions.ts'
import {
  duplicateResult,
  hashRuns,
  issueTouchParams,
  type SyncGroupingIo,
  upsertGroupSync,
} from '../grouping-upsert.ts'
import { type CommitIo, runCommitSync } from '../ingest-transaction.ts'
import { admitEvents, type QuotaWindow, type UnitQuota } from '../quota-rules.ts'
import {
  type EventParams,
  eventInsertValues,
  HASHED_ISSUE_COLUMNS,
  type HashedIssueRow,
  toFoundIssue,
} from '../rows/issues.ts'
import { type IssueTagRow, newUsers, type SearchSummaries } from '../search-summaries.ts'
import { issueKeyMasks } from '../tag-key-mask.ts'
import type { EventToWrite, EventWriteResult, IngestStore, WriteUnit } from '../types.ts'
import { sqliteStepRunner } from './sql-port.ts'

/**
 * The ingest write path on SQLite: every unit of a group commit in one transaction of prepared
 * statements. Idempotent on (project, event_id): a duplicate changes nothing. The transaction's
 * steps and decisions (ingest-transaction.ts, grouping-upsert.ts, issue-rules.ts,
 * outcome-counters.ts) are the ones PostgreSQL also runs; the statements here only read and
 * write, and the quota is charged inside the transaction (one writer).
 */
export function sqliteIngest(db: Database.Database): IngestStore {
  const eventExists = db.prepare<[number, string], { one: number }>(
    'SELECT 1 AS one FROM events WHERE project_id = ? AND event_id = ?',
  )
  // The issue's triage columns come along: the rules (issue-rules.ts) decide in code.
  const findHash = db.prepare<[number, string], HashedIssueRow>(
    `SELECT ${HASHED_ISSUE_COLUMNS}
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
  const touchIssue = db.prepare<ReturnType<typeof issueTouchParams>>(
    `UPDATE issues SET times_seen = times_seen + ?, last_seen = max(last_seen, ?),
       title = ?, culprit = ?, level = ?, type = ?, value = ?, status = ?, for_review = ?,
       ignore_until = ?, ignore_until_seen = ?
     WHERE id = ?`,
  )
  // Positional parameters: binding by name costs a lookup per parameter on the hottest insert.
  const insertEvent = db.prepare<EventParams>(
    `INSERT INTO events (project_id, event_id, issue_id, key_id, timestamp, received, level, release, environment, component, payload, search)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  const addOutcome = db.prepare<[number, number, number, string, string, string, number]>(
    `INSERT INTO outcomes (project_id, key_id, hour, outcome, reason, category, quantity)
     VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (project_id, hour, key_id, outcome, reason, category) DO UPDATE SET quantity = quantity + excluded.quantity`,
  )

  const grouping: SyncGroupingIo = {
    findHash: (e, hash) => toFoundIssue(findHash.get(e.projectId, hash)),
    // One writer: the hash cannot have been claimed since findHash, so this always creates.
    createIssue: (e) => {
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
      insertHash.run(e.projectId, e.hash, e.groupingVersion, row.id)
      return row.id
    },
    touchIssue: (t) => {
      touchIssue.run(...issueTouchParams(t))
    },
    // One writer: nobody claimed the hash since findHash missed it.
    claimHash: (e, issueId) => {
      insertHash.run(e.projectId, e.hash, e.groupingVersion, issueId)
      return true
    },
  }

  /**
   * Writes a group's events: duplicates and runs of one hash decided by grouping-upsert.ts
   * (the same rule PostgreSQL runs), one `UPDATE` per hash, then the new events inserted in
   * arrival order.
   */
  const writeEvents = (events: readonly EventToWrite[]): EventWriteResult[] => {
    const results: EventWriteResult[] = events.map(duplicateResult)
    const runs = hashRuns(events, (e) => eventExists.get(e.projectId, e.eventId) !== undefined)
    for (const run of runs) {
      const grouped = upsertGroupSync(
        grouping,
        run.map((i) => events[i] as EventToWrite),
      )
      run.forEach((i, n) => {
        const r = results[i] as EventWriteResult
        Object.assign(r, grouped[n], { duplicate: false })
      })
    }
    events.forEach((e, i) => {
      const r = results[i] as EventWriteResult
      if (r.duplicate) return
      insertEvent.run(...eventInsertValues(e, r.issueId))
    })
    return results
  }

  // The pages read these summaries (migration 007), never a scan of `events`.
  const addFacet = db.prepare<[number, string, string, number]>(
    'INSERT OR IGNORE INTO issue_facets (issue_id, kind, value, project_id) VALUES (?, ?, ?, ?)',
  )
  const addHour = db.prepare<[number, number, number]>(
    `INSERT INTO issue_hours (issue_id, hour, events) VALUES (?, ?, ?)
     ON CONFLICT (issue_id, hour) DO UPDATE SET events = events + excluded.events`,
  )

  // The search indexes (migration 014): one upsert per distinct (issue, key, value) per group.
  // Only the `user` rows read their count back (a new distinct user is one whose count equals
  // this group's increment); the others skip the RETURNING.
  const upsertTag = `INSERT INTO issue_tags (issue_id, key, value, times_seen, first_seen, last_seen)
     VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (issue_id, key, value) DO UPDATE SET times_seen = times_seen + excluded.times_seen,
       first_seen = min(first_seen, excluded.first_seen), last_seen = max(last_seen, excluded.last_seen)`
  const addTag = db.prepare<IssueTagRow>(upsertTag)
  const addUserTag = db.prepare<IssueTagRow, { times_seen: number }>(
    `${upsertTag} RETURNING times_seen`,
  )
  const addUsers = db.prepare<[number, number]>('UPDATE issues SET users = users + ? WHERE id = ?')
  // The issue's promoted keys (tag-key-mask.ts), written only when a key is new to it.
  const addKeys = db.prepare<[number, number, number, number]>(
    'UPDATE issues SET tag_keys = tag_keys | ? WHERE id = ? AND tag_keys & ? <> ?',
  )
  const addText = db.prepare<[number, string]>(
    'INSERT OR REPLACE INTO issue_text (rowid, body) VALUES (?, ?)',
  )
  const writeSearch = (s: SearchSummaries) => {
    const rows = s.tags()
    const users: { issue_id: number; value: string; times_seen: number }[] = []
    for (const r of rows) {
      if (r[1] !== 'user') {
        addTag.run(...r)
        continue
      }
      const after = addUserTag.get(...r)
      if (after !== undefined)
        users.push({ issue_id: r[0], value: r[2], times_seen: after.times_seen })
    }
    for (const [issueId, n] of newUsers(rows, users)) addUsers.run(n, issueId)
    for (const [issueId, mask] of issueKeyMasks(rows)) addKeys.run(mask, issueId, mask, mask)
    for (const [issueId, text] of s.issueTexts()) addText.run(issueId, text)
  }

  const rulesOf = db.prepare<[number], RuleConditionsRow>(
    'SELECT id, project_id, conditions FROM alert_rules WHERE project_id = ? AND deleted_at IS NULL',
  )
  const addTrigger = db.prepare<[number, number, number, string, string, string, number]>(
    `INSERT OR IGNORE INTO alert_triggers (rule_id, project_id, issue_id, trigger_kind, trigger_id, event_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  )
  const countInWindow = db.prepare<[number, number, number], { n: number }>(
    'SELECT COUNT(*) AS n FROM (SELECT 1 FROM events WHERE issue_id = ? AND received >= ? LIMIT ?)',
  )
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
    seen: Set<string>,
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
    // `seen` spans the group: its events are written only after every unit is admitted.
    const isFresh = (e: EventToWrite): boolean => {
      const id = `${e.projectId}:${e.eventId}`
      if (seen.has(id)) return false
      seen.add(id)
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

  // Shared steps (release health, check-ins) run synchronously inside this transaction.
  const steps = sqliteStepRunner(db)

  // The transaction's rule is ingest-transaction.ts; these are SQLite's statements for it.
  const io: CommitIo = {
    // The quota step of every unit first, then all the admitted events (one UPDATE per hash).
    units: (units) => {
      const windows = new Map<number, QuotaWindow>()
      const seen = new Set<string>()
      const admitted = units.map((u) => admit(u, windows, seen))
      for (const [projectId, w] of windows)
        saveWindow.run(projectId, w.start, w.seconds, w.used, w.limited ? 1 : 0)
      const written = writeEvents(admitted.flatMap((a) => a.events))
      let n = 0
      return admitted.map((a) => ({
        written: a.events.map((e) => ({ e, r: written[n++] as EventWriteResult })),
        ...(a.quota === undefined ? {} : { quota: a.quota }),
      }))
    },
    event: (e) => writeEvents([e])[0] as EventWriteResult,
    steps: (s) => steps.drive(s),
    rules: (projectIds) => projectIds.flatMap((p) => rulesOf.all(p)),
    count: (c) => countInWindow.get(c.issueId, c.since, c.threshold + 1)?.n ?? 0,
    triggers: (decisions, now) => {
      for (const d of decisions)
        addTrigger.run(d.ruleId, d.projectId, d.issueId, d.kind, d.triggerId, d.eventId, now)
    },
    // Counters are summed per group commit first: one upsert per distinct counter, not per item.
    counters: ({ outcomes, summaries, search }) => {
      for (const o of outcomes)
        addOutcome.run(o.projectId, o.keyId, o.at, o.outcome, o.reason, o.category, o.quantity)
      for (const f of summaries.facets()) addFacet.run(...f)
      for (const h of summaries.hours()) addHour.run(...h)
      writeSearch(search)
    },
  }
  const writeAll = db.transaction((units: WriteUnit[]) =>
    runCommitSync(io, 'sqlite', units, Date.now()),
  )

  // IMMEDIATE takes the write lock up front: the reads inside then never race another
  // connection's writes into SQLITE_BUSY_SNAPSHOT.
  return { write: async (units) => writeAll.immediate(units) }
}
