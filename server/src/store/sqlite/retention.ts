import type Database from 'better-sqlite3'
import type { RetentionStore } from '../types.ts'

/**
 * Retention on SQLite: small batched deletes by primary key (row values: several tables are
 * `WITHOUT ROWID`), each its own short transaction,
 * so the ingest writer waits at most one batch for the write lock. Issues keep their
 * `times_seen` (only events go); hourly health rollups and users go with their hour.
 */
export function sqliteRetention(db: Database.Database): RetentionStore {
  const events = db.prepare<[number, number]>(
    'DELETE FROM events WHERE id IN (SELECT id FROM events WHERE received < ? ORDER BY received LIMIT ?)',
  )
  const sessions = db.prepare<[number, number]>(
    `DELETE FROM health_sessions WHERE (project_id, sid) IN
       (SELECT project_id, sid FROM health_sessions WHERE updated < ? ORDER BY updated LIMIT ?)`,
  )
  const hours = db.prepare<[number, number]>(
    `DELETE FROM health_hours WHERE (project_id, release, environment, hour) IN
       (SELECT project_id, release, environment, hour FROM health_hours WHERE hour < ? LIMIT ?)`,
  )
  const users = db.prepare<[number, number]>(
    `DELETE FROM health_users WHERE (project_id, release, environment, hour, did) IN
       (SELECT project_id, release, environment, hour, did FROM health_users WHERE hour < ? LIMIT ?)`,
  )
  const outcomes = db.prepare<[number, number]>(
    `DELETE FROM outcomes WHERE (project_id, hour, key_id, outcome, reason, category) IN
       (SELECT project_id, hour, key_id, outcome, reason, category FROM outcomes
        WHERE hour < ? ORDER BY hour LIMIT ?)`,
  )
  return {
    pruneBefore: async (cutoff, limit) => ({
      events: events.run(cutoff, limit).changes,
      sessions:
        sessions.run(cutoff, limit).changes +
        hours.run(cutoff, limit).changes +
        users.run(cutoff, limit).changes,
      outcomes: outcomes.run(cutoff, limit).changes,
    }),
  }
}
