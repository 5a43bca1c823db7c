import type { LiveEventRow, LiveStore } from '../live-store.ts'
import { inList } from '../sql/in-list.ts'
import type { SqlPort } from '../sql/port.ts'
import { raw, sql } from '../sql/statement.ts'

// Quoted: PostgreSQL folds unquoted aliases to lower case.
const COLUMNS = raw('id, issue_id AS "issueId", event_id AS "eventId"')

/** Live-stream reads, written once: by (project, event_id) and by row id, both indexed. */
export function liveQueries(db: SqlPort): LiveStore {
  return {
    liveEventIds: async (projectId, eventIds) =>
      eventIds.length === 0
        ? []
        : db.all<LiveEventRow>(
            sql`SELECT ${COLUMNS} FROM events
                WHERE project_id = ${projectId} AND ${inList(db.dialect, 'event_id', eventIds, 'text')}`,
          ),
    liveEventsAfter: async (projectId, afterId, limit) =>
      (
        await db.all<LiveEventRow>(
          sql`SELECT ${COLUMNS} FROM events
              WHERE id > ${afterId} AND project_id = ${projectId} ORDER BY id DESC LIMIT ${limit}`,
        )
      ).reverse(),
  }
}
