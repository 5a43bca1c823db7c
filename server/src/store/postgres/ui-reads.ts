import type pg from 'pg'
import type { EventNeighbours, IssueStatus, UiReadStore } from '../types.ts'
import { all, first } from './db.ts'

/** At most this many choices per filter (the select would be unusable beyond), as on SQLite. */
const FACET_LIMIT = 200
const HOUR = 3_600_000

/** Reads for the web UI's charts, filters and event stepping on PostgreSQL. */
export function pgUiReads(pool: pg.Pool): UiReadStore {
  const facet = async (col: 'environment' | 'release' | 'component', projectId: number) =>
    (
      await all<{ v: string }>(
        pool,
        // Through `issue_facets_project`: bounded by the project's issues, not its events.
        `SELECT DISTINCT value AS v FROM issue_facets WHERE project_id = $1 AND kind = '${col}'
         ORDER BY value LIMIT $2`,
        [projectId, FACET_LIMIT],
      )
    ).map((r) => r.v)
  const eventId = async (sql: string, params: unknown[]) =>
    (await first<{ event_id: string }>(pool, sql, params))?.event_id
  return {
    // Hour-aligned charts (every chart the pages draw) sum `issue_hours`: at most 24 rows a day
    // whatever the issue's size. Other alignments count the issue's events in the time index.
    issueHistogram: async (issueId, since, bucketMs) =>
      (
        await all<{ bucket: number; n: number }>(
          pool,
          since % HOUR === 0 && bucketMs % HOUR === 0
            ? `SELECT (hour - $1::bigint) / $2::bigint AS bucket, SUM(events) AS n FROM issue_hours
               WHERE issue_id = $3 AND hour >= $1 GROUP BY bucket ORDER BY bucket`
            : `SELECT (received - $1::bigint) / $2::bigint AS bucket, COUNT(*) AS n FROM events
               WHERE issue_id = $3 AND received >= $1 GROUP BY bucket ORDER BY bucket`,
          [since, bucketMs, issueId],
        )
      ).map((r) => ({ start: since + r.bucket * bucketMs, count: r.n })),
    projectFacets: async (projectId) => {
      const fromKeys = (
        await all<{ v: string }>(
          pool,
          'SELECT DISTINCT component AS v FROM project_keys WHERE project_id = $1 AND component IS NOT NULL',
          [projectId],
        )
      ).map((r) => r.v)
      return {
        environments: await facet('environment', projectId),
        releases: await facet('release', projectId),
        components: [...new Set([...(await facet('component', projectId)), ...fromKeys])].sort(),
      }
    },
    issueCountsByStatus: async (projectId) => {
      const counts: Record<IssueStatus, number> = { unresolved: 0, resolved: 0, ignored: 0 }
      const rows = await all<{ status: IssueStatus; n: number }>(
        pool,
        'SELECT status, COUNT(*) AS n FROM issues WHERE project_id = $1 GROUP BY status',
        [projectId],
      )
      for (const r of rows) counts[r.status] = r.n
      return counts
    },
    eventNeighbours: async (issueId, id) => {
      const out: EventNeighbours = {}
      const oldest = await eventId(
        'SELECT event_id FROM events WHERE issue_id = $1 ORDER BY id ASC LIMIT 1',
        [issueId],
      )
      const newest = await eventId(
        'SELECT event_id FROM events WHERE issue_id = $1 ORDER BY id DESC LIMIT 1',
        [issueId],
      )
      if (oldest !== undefined) out.oldest = oldest
      if (newest !== undefined) out.newest = newest
      const at = await first<{ id: number }>(
        pool,
        `SELECT id FROM events WHERE project_id = (SELECT project_id FROM issues WHERE id = $1)
           AND event_id = $2 AND issue_id = $1`,
        [issueId, id],
      )
      if (at === undefined) return out
      const n = await eventId(
        'SELECT event_id FROM events WHERE issue_id = $1 AND id > $2 ORDER BY id ASC LIMIT 1',
        [issueId, at.id],
      )
      const o = await eventId(
        'SELECT event_id FROM events WHERE issue_id = $1 AND id < $2 ORDER BY id DESC LIMIT 1',
        [issueId, at.id],
      )
      if (n !== undefined) out.newer = n
      if (o !== undefined) out.older = o
      return out
    },
  }
}
