import type Database from 'better-sqlite3'
import { HOUR } from '../hours.ts'
import type { PruneResult, RetentionStore } from '../retention-store.ts'

/**
 * Retention on SQLite: small batched deletes by primary key (row values: several tables are
 * `WITHOUT ROWID`), one short transaction per batch (one fsync, not one per table), so the
 * ingest writer waits at most one batch for the write lock. A file store runs the batches on
 * its writer thread between group commits (ingest-thread.ts), never on the thread that serves
 * requests. Issues keep their
 * `times_seen` (only events go); hourly health rollups and users go with their hour, and so
 * does the issue chart's hourly count.
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
  // The issue page's chart (`issue_hours`, migration 007) follows the events: an hour goes once
  // it ends at or before the cutoff, so a chart over expired time shows 0 as on PostgreSQL,
  // which counts the events themselves. `issue_facets` stay: like `times_seen` they describe the
  // issue's whole history, and the issue stays (docs/postgresql.md "Retention").
  const issueHours = db.prepare<[number, number]>(
    `DELETE FROM issue_hours WHERE (issue_id, hour) IN
       (SELECT issue_id, hour FROM issue_hours WHERE hour <= ? LIMIT ?)`,
  )
  const batch = db.transaction(
    (cutoff: number, limit: number): PruneResult => ({
      derived: issueHours.run(cutoff - HOUR, limit).changes,
      events: events.run(cutoff, limit).changes,
      sessions:
        sessions.run(cutoff, limit).changes +
        hours.run(cutoff, limit).changes +
        users.run(cutoff, limit).changes,
      outcomes: outcomes.run(cutoff, limit).changes,
    }),
  )
  return { pruneBefore: async (cutoff, limit) => batch.immediate(cutoff, limit) }
}
