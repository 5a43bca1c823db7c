import type Database from 'better-sqlite3'
import type { IssueStore } from '../issue-store.ts'
import { decodeCursor, type EventRow, type IssueRow, toEvent, toIssue } from '../rows/issues.ts'
import { substringPattern } from '../text-filter.ts'

/** Issue and event reads on SQLite. */
export function sqliteIssues(db: Database.Database): IssueStore {
  const oneIssue = db.prepare<[number], IssueRow>('SELECT * FROM issues WHERE id = ?')
  const setStatus = db.prepare<[string, number]>('UPDATE issues SET status = ? WHERE id = ?')
  const eventsOf = db.prepare<[number, number, number], EventRow>(
    'SELECT * FROM events WHERE issue_id = ? AND id < ? ORDER BY id DESC LIMIT ?',
  )
  const oneEvent = db.prepare<[number, string], EventRow>(
    'SELECT * FROM events WHERE project_id = ? AND event_id = ?',
  )
  const outcomes = db.prepare<
    [number, number, number],
    { outcome: string; reason: string; category: string; quantity: number }
  >(
    `SELECT outcome, reason, category, SUM(quantity) AS quantity FROM outcomes
     WHERE project_id = ? AND hour >= ? AND hour < ? GROUP BY outcome, reason, category ORDER BY outcome, reason, category`,
  )
  return {
    listIssues: async (projectId, filter, page) => {
      const where = ['i.project_id = ?']
      const args: (string | number)[] = [projectId]
      if (filter.status !== undefined) {
        where.push('i.status = ?')
        args.push(filter.status)
      }
      if (filter.forReview !== undefined) {
        where.push(
          filter.forReview ? "i.for_review = 1 AND i.status = 'unresolved'" : 'i.for_review = 0',
        )
      }
      if (filter.query !== undefined && filter.query !== '') {
        where.push("(i.title LIKE ? ESCAPE '\\' OR i.culprit LIKE ? ESCAPE '\\')")
        const like = substringPattern(filter.query)
        args.push(like, like)
      }
      for (const col of ['environment', 'release', 'component'] as const) {
        const v = filter[col]
        if (v === undefined || v === '') continue
        // A primary-key lookup in `issue_facets` per issue walked, never a scan of `events`.
        where.push(
          'EXISTS (SELECT 1 FROM issue_facets WHERE issue_id = i.id AND kind = ? AND value = ?)',
        )
        args.push(col, v)
      }
      const after = decodeCursor(page.cursor)
      if (after !== undefined) {
        where.push('(i.last_seen < ? OR (i.last_seen = ? AND i.id < ?))')
        args.push(after[0], after[0], after[1])
      }
      const rows = db
        .prepare<(string | number)[], IssueRow>(
          `SELECT i.* FROM issues i WHERE ${where.join(' AND ')} ORDER BY i.last_seen DESC, i.id DESC LIMIT ?`,
        )
        .all(...args, page.limit + 1)
      const issues = rows.slice(0, page.limit).map(toIssue)
      const last = issues[issues.length - 1]
      return rows.length > page.limit && last !== undefined
        ? { issues, next: `${last.lastSeen}:${last.id}` }
        : { issues }
    },
    getIssue: async (id) => {
      const r = oneIssue.get(id)
      return r === undefined ? undefined : toIssue(r)
    },
    setIssueStatus: async (id, status) => setStatus.run(status, id).changes > 0,
    listIssueEvents: async (issueId, page) => {
      const before = page.cursor !== undefined ? Number(page.cursor) : Number.MAX_SAFE_INTEGER
      const rows = eventsOf.all(issueId, Number.isFinite(before) ? before : 0, page.limit + 1)
      const events = rows.slice(0, page.limit)
      const last = events[events.length - 1]
      return rows.length > page.limit && last !== undefined
        ? { events: events.map(toEvent), next: String(last.id) }
        : { events: events.map(toEvent) }
    },
    getEvent: async (projectId, eventId) => {
      const r = oneEvent.get(projectId, eventId)
      return r === undefined ? undefined : toEvent(r)
    },
    outcomeTotals: async (projectId, since, until) => outcomes.all(projectId, since, until),
  }
}
