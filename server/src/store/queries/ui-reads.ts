import { HOUR } from '../hours.ts'
import { ISSUE_COUNT_CAP } from '../issue-store.ts'
import type { IssueStatus } from '../model.ts'
import type { SqlPort } from '../sql/port.ts'
import { raw, type Statement, sql } from '../sql/statement.ts'
import type { EventNeighbours, UiReadStore } from '../ui-read-store.ts'

/** At most this many choices per filter (the select would be unusable beyond). */
const FACET_LIMIT = 200

/** Reads for the web UI's charts, filters and event stepping, written once. */
export function uiReadQueries(db: SqlPort): UiReadStore {
  // Distinct values through `issue_facets_project`: bounded by the project's issues, not events.
  const facet = async (kind: 'environment' | 'release' | 'component', projectId: number) =>
    (
      await db.all<{ v: string }>(
        sql`SELECT DISTINCT value AS v FROM issue_facets WHERE project_id = ${projectId}
            AND kind = ${kind} ORDER BY value LIMIT ${FACET_LIMIT}`,
      )
    ).map((r) => r.v)
  const eventId = async (q: Statement) => (await db.first<{ event_id: string }>(q))?.event_id
  return {
    issueHistogram: async (issueId, since, bucketMs) => {
      // Hour-aligned charts (every chart the pages draw) sum `issue_hours`: at most 24 rows a
      // day whatever the issue's size. Other alignments count the issue's events in the time index.
      const [n, at, table] =
        since % HOUR === 0 && bucketMs % HOUR === 0
          ? ['SUM(events)', 'hour', 'issue_hours']
          : ['COUNT(*)', 'received', 'events']
      const rows = await db.all<{ bucket: number; n: number }>(
        sql`SELECT CAST((${raw(at)} - CAST(${since} AS BIGINT)) / CAST(${bucketMs} AS BIGINT) AS BIGINT)
              AS bucket, ${raw(n)} AS n
            FROM ${raw(table)} WHERE issue_id = ${issueId} AND ${raw(at)} >= ${since}
            GROUP BY bucket ORDER BY bucket`,
      )
      return rows.map((r) => ({ start: since + r.bucket * bucketMs, count: r.n }))
    },
    projectFacets: async (projectId) => {
      const fromKeys = (
        await db.all<{ v: string }>(
          sql`SELECT DISTINCT component AS v FROM project_keys
              WHERE project_id = ${projectId} AND component IS NOT NULL`,
        )
      ).map((r) => r.v)
      return {
        environments: await facet('environment', projectId),
        releases: await facet('release', projectId),
        components: [...new Set([...(await facet('component', projectId)), ...fromKeys])].sort(),
      }
    },
    issueCountsByStatus: async (projectId) => {
      // One capped count per status through `issues_project_status`.
      const n = async (status: IssueStatus) =>
        (
          await db.first<{ n: number }>(
            sql`SELECT COUNT(*) AS n FROM (SELECT 1 FROM issues
                  WHERE project_id = ${projectId} AND status = ${status}
                  LIMIT ${ISSUE_COUNT_CAP + 1}) AS capped`,
          )
        )?.n ?? 0
      return {
        unresolved: await n('unresolved'),
        resolved: await n('resolved'),
        ignored: await n('ignored'),
      }
    },
    eventNeighbours: async (issueId, id) => {
      const out: EventNeighbours = {}
      const oldest = await eventId(
        sql`SELECT event_id FROM events WHERE issue_id = ${issueId} ORDER BY id ASC LIMIT 1`,
      )
      const newest = await eventId(
        sql`SELECT event_id FROM events WHERE issue_id = ${issueId} ORDER BY id DESC LIMIT 1`,
      )
      if (oldest !== undefined) out.oldest = oldest
      if (newest !== undefined) out.newest = newest
      // Through the (project_id, event_id) index, not a scan of the issue's events.
      const at = await db.first<{ id: number }>(
        sql`SELECT id FROM events WHERE project_id = (SELECT project_id FROM issues WHERE id = ${issueId})
              AND event_id = ${id} AND issue_id = ${issueId}`,
      )
      if (at === undefined) return out
      const n = await eventId(
        sql`SELECT event_id FROM events WHERE issue_id = ${issueId} AND id > ${at.id} ORDER BY id ASC LIMIT 1`,
      )
      const o = await eventId(
        sql`SELECT event_id FROM events WHERE issue_id = ${issueId} AND id < ${at.id} ORDER BY id DESC LIMIT 1`,
      )
      if (n !== undefined) out.newer = n
      if (o !== undefined) out.older = o
      return out
    },
  }
}
