import type Database from 'better-sqlite3'
import type { LiveEventRow, LiveStore } from '../types.ts'

/** Live-stream reads on SQLite: by (project, event_id) and by row id, both indexed. */
export function sqliteLive(db: Database.Database): LiveStore {
  const after = db.prepare<[number, number, number], LiveEventRow>(
    `SELECT id, issue_id AS issueId, event_id AS eventId FROM events
     WHERE id > ? AND project_id = ? ORDER BY id DESC LIMIT ?`,
  )
  return {
    liveEventIds: async (projectId, eventIds) => {
      if (eventIds.length === 0) return []
      return db
        .prepare<unknown[], LiveEventRow>(
          `SELECT id, issue_id AS issueId, event_id AS eventId FROM events
           WHERE project_id = ? AND event_id IN (${eventIds.map(() => '?').join(', ')})`,
        )
        .all(projectId, ...eventIds)
    },
    liveEventsAfter: async (projectId, afterId, limit) =>
      after.all(afterId, projectId, limit).reverse(),
  }
}
