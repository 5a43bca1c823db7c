import type { IssueStore } from '../issue-store.ts'
import { decodeCursor, type EventRow, type IssueRow, toEvent, toIssue } from '../rows/issues.ts'
import type { SqlPort } from '../sql/port.ts'
import { join, raw, type Statement, sql } from '../sql/statement.ts'
import { substringPattern } from '../text-filter.ts'

/**
 * Issue and event reads, written once. The text filter is the one dialect difference:
 * SQLite's `LIKE` already ignores ASCII case, PostgreSQL's needs `ILIKE` for the same match.
 */
export function issueQueries(db: SqlPort): IssueStore {
  const like = raw(db.dialect === 'postgres' ? 'ILIKE' : 'LIKE')
  return {
    listIssues: async (projectId, filter, page) => {
      const where: Statement[] = [sql`i.project_id = ${projectId}`]
      if (filter.status !== undefined) where.push(sql`i.status = ${filter.status}`)
      if (filter.forReview !== undefined)
        where.push(
          filter.forReview
            ? sql`i.for_review = 1 AND i.status = 'unresolved'`
            : sql`i.for_review = 0`,
        )
      if (filter.query !== undefined && filter.query !== '') {
        const p = substringPattern(filter.query)
        where.push(sql`(i.title ${like} ${p} ESCAPE '\\' OR i.culprit ${like} ${p} ESCAPE '\\')`)
      }
      for (const col of ['environment', 'release', 'component'] as const) {
        const v = filter[col]
        if (v === undefined || v === '') continue
        // A primary-key lookup in `issue_facets` per issue walked, never a scan of `events`.
        where.push(
          sql`EXISTS (SELECT 1 FROM issue_facets WHERE issue_id = i.id AND kind = ${col} AND value = ${v})`,
        )
      }
      const after = decodeCursor(page.cursor)
      if (after !== undefined)
        where.push(
          sql`(i.last_seen < ${after[0]} OR (i.last_seen = ${after[0]} AND i.id < ${after[1]}))`,
        )
      const rows = await db.all<IssueRow>(
        sql`SELECT i.* FROM issues i WHERE ${join(where, ' AND ')}
            ORDER BY i.last_seen DESC, i.id DESC LIMIT ${page.limit + 1}`,
      )
      const issues = rows.slice(0, page.limit).map(toIssue)
      const last = issues[issues.length - 1]
      return rows.length > page.limit && last !== undefined
        ? { issues, next: `${last.lastSeen}:${last.id}` }
        : { issues }
    },
    getIssue: async (id) => {
      const r = await db.first<IssueRow>(sql`SELECT * FROM issues WHERE id = ${id}`)
      return r === undefined ? undefined : toIssue(r)
    },
    issueProjectId: async (id) =>
      (await db.first<{ project_id: number }>(sql`SELECT project_id FROM issues WHERE id = ${id}`))
        ?.project_id,
    setIssueStatus: async (id, status) =>
      (await db.run(sql`UPDATE issues SET status = ${status} WHERE id = ${id}`)) > 0,
    listIssueEvents: async (issueId, page) => {
      const before = page.cursor !== undefined ? Number(page.cursor) : Number.MAX_SAFE_INTEGER
      const rows = await db.all<EventRow>(
        sql`SELECT * FROM events WHERE issue_id = ${issueId}
            AND id < ${Number.isSafeInteger(before) ? before : 0} ORDER BY id DESC LIMIT ${page.limit + 1}`,
      )
      const events = rows.slice(0, page.limit)
      const last = events[events.length - 1]
      return rows.length > page.limit && last !== undefined
        ? { events: events.map(toEvent), next: String(last.id) }
        : { events: events.map(toEvent) }
    },
    getEvent: async (projectId, eventId) => {
      const r = await db.first<EventRow>(
        sql`SELECT * FROM events WHERE project_id = ${projectId} AND event_id = ${eventId}`,
      )
      return r === undefined ? undefined : toEvent(r)
    },
    outcomeTotals: (projectId, since, until) =>
      db.all(
        sql`SELECT outcome, reason, category, SUM(quantity) AS quantity FROM outcomes
            WHERE project_id = ${projectId} AND hour >= ${since} AND hour < ${until}
            GROUP BY outcome, reason, category ORDER BY outcome, reason, category`,
      ),
  }
}
