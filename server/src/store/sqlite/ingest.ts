import type Database from 'better-sqlite3'
import { hashRuns, type SyncGroupingIo, upsertGroupSync } from '../grouping-upsert.ts'
import { IssueSummaries } from '../issue-summaries.ts'
import { eventOutcome, OutcomeCounters } from '../outcome-counters.ts'
import type {
  EventToWrite,
  EventWriteResult,
  IngestStore,
  IssueStatus,
  WriteUnit,
} from '../types.ts'
import { sqliteCheckInWriter } from './monitors.ts'
import { sqliteHealthWriter } from './release-health.ts'

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

/**
 * The ingest write path on SQLite: every unit of a group commit in one transaction of prepared
 * statements. Idempotent on (project, event_id): a duplicate changes nothing. The decisions
 * (duplicates, grouping, regression and ignore rules, counters) are the backend-neutral ones
 * PostgreSQL also runs (grouping-upsert.ts, issue-rules.ts, outcome-counters.ts); the
 * statements here only read and write.
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
    [number, number, string, string, string, string, number, number | null, number | null, number]
  >(
    `UPDATE issues SET times_seen = times_seen + ?, last_seen = max(last_seen, ?),
       title = ?, culprit = ?, level = ?, status = ?, for_review = ?, ignore_until = ?,
       ignore_until_seen = ?
     WHERE id = ?`,
  )
  // Positional parameters: binding by name costs a lookup per parameter on the hottest insert.
  const insertEvent = db.prepare<EventParams>(
    `INSERT INTO events (project_id, event_id, issue_id, key_id, timestamp, received, level, release, environment, component, payload)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  const addOutcome = db.prepare<[number, number, number, string, string, string, number]>(
    `INSERT INTO outcomes (project_id, key_id, hour, outcome, reason, category, quantity)
     VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (project_id, hour, key_id, outcome, reason, category) DO UPDATE SET quantity = quantity + excluded.quantity`,
  )

  const io: SyncGroupingIo = {
    findHash: (e) => {
      const h = findHash.get(e.projectId, e.hash)
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
    },
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
      touchIssue.run(
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
      )
    },
  }

  /**
   * Writes a group's events: duplicates and runs of one hash decided by grouping-upsert.ts
   * (the same rule PostgreSQL runs), one `UPDATE` per hash, then the new events inserted in
   * arrival order.
   */
  const writeEvents = (events: readonly EventToWrite[]): EventWriteResult[] => {
    const results: EventWriteResult[] = events.map((e) => ({
      eventId: e.eventId,
      issueId: 0,
      duplicate: true,
      issueCreated: false,
      regressed: false,
    }))
    const runs = hashRuns(events, (e) => eventExists.get(e.projectId, e.eventId) !== undefined)
    for (const run of runs) {
      const grouped = upsertGroupSync(
        io,
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
      insertEvent.run(
        e.projectId,
        e.eventId,
        r.issueId,
        e.keyId,
        e.timestamp,
        e.received,
        e.level,
        e.release,
        e.environment,
        e.component,
        e.payload,
      )
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

  const writeHealth = sqliteHealthWriter(db)
  const writeCheckIn = sqliteCheckInWriter(db)

  // Counters are summed per group commit first: one upsert per distinct counter, not per item.
  const writeAll = db.transaction((units: WriteUnit[]) => {
    const counters = new OutcomeCounters()
    const summaries = new IssueSummaries()
    const counted = (e: EventToWrite, r: EventWriteResult): EventWriteResult => {
      counters.add(eventOutcome(e, r))
      summaries.add(e, r)
      return r
    }
    const countedEvent = (e: EventToWrite): EventWriteResult =>
      counted(e, writeEvents([e])[0] as EventWriteResult)
    // All the group's events first (one UPDATE per hash), then each unit's other items.
    const all = units.flatMap((u) => u.events)
    const written = writeEvents(all)
    let n = 0
    const results = units.map((u) => {
      const events = u.events.map((e) => counted(e, written[n++] as EventWriteResult))
      for (const o of u.outcomes) counters.add(o)
      writeHealth(u)
      for (const c of u.checkIns ?? []) {
        const r = writeCheckIn(c, countedEvent, (o) => counters.add(o))
        if (r !== undefined) events.push(r)
      }
      return { events }
    })
    for (const o of counters.sorted())
      addOutcome.run(o.projectId, o.keyId, o.at, o.outcome, o.reason, o.category, o.quantity)
    for (const f of summaries.facets()) addFacet.run(...f)
    for (const h of summaries.hours()) addHour.run(...h)
    return results
  })

  // IMMEDIATE takes the write lock up front: the reads inside then never race another
  // connection's writes into SQLITE_BUSY_SNAPSHOT.
  return { write: async (units) => writeAll.immediate(units) }
}
