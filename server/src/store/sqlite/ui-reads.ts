import type Database from 'better-sqlite3'
import {
  type EventNeighbours,
  ISSUE_COUNT_CAP,
  type IssueStatus,
  type UiReadStore,
} from '../types.ts'

/** At most this many choices per filter (the select would be unusable beyond). */
const FACET_LIMIT = 200

const HOUR = 3_600_000

/** Reads for the web UI's charts, filters and event stepping on SQLite. */
export function sqliteUiReads(db: Database.Database): UiReadStore {
  // Hour-aligned charts (every chart the pages draw) sum `issue_hours`: at most 24 rows a day
  // whatever the issue's size. Other alignments count the issue's events in the time index.
  const hourHistogram = db.prepare<[number, number, number, number], { bucket: number; n: number }>(
    `SELECT CAST((hour - ?) / ? AS INTEGER) AS bucket, SUM(events) AS n FROM issue_hours
     WHERE issue_id = ? AND hour >= ? GROUP BY bucket ORDER BY bucket`,
  )
  const histogram = db.prepare<[number, number, number, number], { bucket: number; n: number }>(
    `SELECT CAST((received - ?) / ? AS INTEGER) AS bucket, COUNT(*) AS n FROM events
     WHERE issue_id = ? AND received >= ? GROUP BY bucket ORDER BY bucket`,
  )
  // Distinct values through `issue_facets_project`: bounded by the project's issues, not events.
  const facet = (kind: 'environment' | 'release' | 'component') =>
    db.prepare<[number, number], { v: string }>(
      `SELECT DISTINCT value AS v FROM issue_facets WHERE project_id = ? AND kind = '${kind}'
       ORDER BY value LIMIT ?`,
    )
  const environments = facet('environment')
  const releases = facet('release')
  const components = facet('component')
  const keyComponents = db.prepare<[number], { v: string }>(
    'SELECT DISTINCT component AS v FROM project_keys WHERE project_id = ? AND component IS NOT NULL',
  )
  // One capped count per status through `issues_project_status`.
  const byStatus = db.prepare<[number, IssueStatus, number], { n: number }>(
    'SELECT COUNT(*) AS n FROM (SELECT 1 FROM issues WHERE project_id = ? AND status = ? LIMIT ?)',
  )
  // Through the (project_id, event_id) unique index, not a scan of the issue's events.
  const rowOf = db.prepare<[number, string, number], { id: number }>(
    `SELECT id FROM events WHERE project_id = (SELECT project_id FROM issues WHERE id = ?)
       AND event_id = ? AND issue_id = ?`,
  )
  const newer = db.prepare<[number, number], { event_id: string }>(
    'SELECT event_id FROM events WHERE issue_id = ? AND id > ? ORDER BY id ASC LIMIT 1',
  )
  const older = db.prepare<[number, number], { event_id: string }>(
    'SELECT event_id FROM events WHERE issue_id = ? AND id < ? ORDER BY id DESC LIMIT 1',
  )
  const newest = db.prepare<[number], { event_id: string }>(
    'SELECT event_id FROM events WHERE issue_id = ? ORDER BY id DESC LIMIT 1',
  )
  const oldest = db.prepare<[number], { event_id: string }>(
    'SELECT event_id FROM events WHERE issue_id = ? ORDER BY id ASC LIMIT 1',
  )
  return {
    issueHistogram: async (issueId, since, bucketMs) =>
      (since % HOUR === 0 && bucketMs % HOUR === 0 ? hourHistogram : histogram)
        .all(since, bucketMs, issueId, since)
        .map((r) => ({ start: since + r.bucket * bucketMs, count: r.n })),
    projectFacets: async (projectId) => {
      const values = (stmt: typeof environments) => stmt.all(projectId, FACET_LIMIT).map((r) => r.v)
      const fromKeys = keyComponents.all(projectId).map((r) => r.v)
      return {
        environments: values(environments),
        releases: values(releases),
        components: [...new Set([...values(components), ...fromKeys])].sort(),
      }
    },
    issueCountsByStatus: async (projectId) => {
      const n = (status: IssueStatus) =>
        byStatus.get(projectId, status, ISSUE_COUNT_CAP + 1)?.n ?? 0
      return { unresolved: n('unresolved'), resolved: n('resolved'), ignored: n('ignored') }
    },
    eventNeighbours: async (issueId, eventId) => {
      const out: EventNeighbours = {}
      const first = oldest.get(issueId)?.event_id
      const last = newest.get(issueId)?.event_id
      if (first !== undefined) out.oldest = first
      if (last !== undefined) out.newest = last
      const at = rowOf.get(issueId, eventId, issueId)
      if (at === undefined) return out
      const n = newer.get(issueId, at.id)?.event_id
      const o = older.get(issueId, at.id)?.event_id
      if (n !== undefined) out.newer = n
      if (o !== undefined) out.older = o
      return out
    },
  }
}
