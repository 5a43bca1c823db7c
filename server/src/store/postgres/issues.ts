import type pg from 'pg'
import type { IssueStore } from '../issue-store.ts'
import { decodeCursor, type EventRow, type IssueRow, toEvent, toIssue } from '../rows/issues.ts'
import { substringPattern } from '../text-filter.ts'
import { all, first, run } from './db.ts'

/** Issue and event reads on PostgreSQL (rows map like SQLite's: the columns are the same). */
export function pgIssues(pool: pg.Pool): IssueStore {
  return {
    listIssues: async (projectId, filter, page) => {
      const args: unknown[] = [projectId]
      const p = (v: unknown): string => {
        args.push(v)
        return `$${args.length}`
      }
      const where = ['i.project_id = $1']
      if (filter.status !== undefined) where.push(`i.status = ${p(filter.status)}`)
      if (filter.forReview !== undefined) {
        where.push(
          filter.forReview ? "i.for_review = 1 AND i.status = 'unresolved'" : 'i.for_review = 0',
        )
      }
      if (filter.query !== undefined && filter.query !== '') {
        const like = p(substringPattern(filter.query))
        where.push(`(i.title ILIKE ${like} ESCAPE '\\' OR i.culprit ILIKE ${like} ESCAPE '\\')`)
      }
      for (const col of ['environment', 'release', 'component'] as const) {
        const v = filter[col]
        if (v === undefined || v === '') continue
        // A primary-key lookup in `issue_facets` per issue walked, never a scan of `events`.
        where.push(
          `EXISTS (SELECT 1 FROM issue_facets f WHERE f.issue_id = i.id AND f.kind = '${col}' AND f.value = ${p(v)})`,
        )
      }
      const after = decodeCursor(page.cursor)
      if (after !== undefined) {
        const ls = p(after[0])
        where.push(`(i.last_seen < ${ls} OR (i.last_seen = ${ls} AND i.id < ${p(after[1])}))`)
      }
      const rows = await all<IssueRow>(
        pool,
        `SELECT i.* FROM issues i WHERE ${where.join(' AND ')} ORDER BY i.last_seen DESC, i.id DESC LIMIT ${p(page.limit + 1)}`,
        args,
      )
      const issues = rows.slice(0, page.limit).map(toIssue)
      const last = issues[issues.length - 1]
      return rows.length > page.limit && last !== undefined
        ? { issues, next: `${last.lastSeen}:${last.id}` }
        : { issues }
    },
    getIssue: async (id) => {
      const r = await first<IssueRow>(pool, 'SELECT * FROM issues WHERE id = $1', [id])
      return r === undefined ? undefined : toIssue(r)
    },
    setIssueStatus: async (id, status) =>
      (await run(pool, 'UPDATE issues SET status = $1 WHERE id = $2', [status, id])) > 0,
    listIssueEvents: async (issueId, page) => {
      const before = page.cursor !== undefined ? Number(page.cursor) : Number.MAX_SAFE_INTEGER
      const rows = await all<EventRow>(
        pool,
        'SELECT * FROM events WHERE issue_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3',
        [issueId, Number.isSafeInteger(before) ? before : 0, page.limit + 1],
      )
      const events = rows.slice(0, page.limit)
      const last = events[events.length - 1]
      return rows.length > page.limit && last !== undefined
        ? { events: events.map(toEvent), next: String(last.id) }
        : { events: events.map(toEvent) }
    },
    getEvent: async (projectId, eventId) => {
      const r = await first<EventRow>(
        pool,
        'SELECT * FROM events WHERE project_id = $1 AND event_id = $2',
        [projectId, eventId],
      )
      return r === undefined ? undefined : toEvent(r)
    },
    outcomeTotals: (projectId, since, until) =>
      all(
        pool,
        `SELECT outcome, reason, category, SUM(quantity) AS quantity FROM outcomes
         WHERE project_id = $1 AND hour >= $2 AND hour < $3
         GROUP BY outcome, reason, category ORDER BY outcome, reason, category`,
        [projectId, since, until],
      ),
  }
}
