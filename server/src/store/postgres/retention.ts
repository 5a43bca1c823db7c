import type pg from 'pg'
import { HOUR } from '../hours.ts'
import type { RetentionStore } from '../retention-store.ts'
import { run } from './db.ts'
import { dropPartitionsBefore, ensurePartitions } from './partitions.ts'

/**
 * Retention on PostgreSQL: first whole days of events go by dropping their daily partition
 * (partitions.ts), and the partitions of the days ahead are created; what is left (rows in the
 * DEFAULT partition, the day the cutoff falls in, sessions, outcomes) goes by small batched
 * deletes, each its own statement (autocommit), so no batch holds row locks ingest waits for. The idempotency keys in `event_ids` go with their
 * events (a resend of an event older than the retention is stored again, as on SQLite).
 * Issues keep their `times_seen`.
 */
export function pgRetention(pool: pg.Pool): RetentionStore {
  const batch = (sql: string, cutoff: number, limit: number) => run(pool, sql, [cutoff, limit])
  return {
    pruneBefore: async (cutoff, limit) => {
      await ensurePartitions(pool, Date.now())
      const dropped = await dropPartitionsBefore(pool, cutoff)
      const deleted = await batch(
        `DELETE FROM events WHERE (id, received) IN
           (SELECT id, received FROM events WHERE received < $1 ORDER BY received LIMIT $2)`,
        cutoff,
        limit,
      )
      // Counted: after a partition drop the keys of a whole day are left to these batches.
      const ids = await batch(
        `DELETE FROM event_ids WHERE (project_id, event_id) IN
           (SELECT project_id, event_id FROM event_ids WHERE received < $1 ORDER BY received LIMIT $2)`,
        cutoff,
        limit,
      )
      const sessions =
        (await batch(
          `DELETE FROM health_sessions WHERE (project_id, sid) IN
             (SELECT project_id, sid FROM health_sessions WHERE updated < $1 ORDER BY updated LIMIT $2)`,
          cutoff,
          limit,
        )) +
        (await batch(
          `DELETE FROM health_hours WHERE (project_id, release, environment, hour) IN
             (SELECT project_id, release, environment, hour FROM health_hours WHERE hour < $1 LIMIT $2)`,
          cutoff,
          limit,
        )) +
        (await batch(
          `DELETE FROM health_users WHERE (project_id, release, environment, hour, did) IN
             (SELECT project_id, release, environment, hour, did FROM health_users WHERE hour < $1 LIMIT $2)`,
          cutoff,
          limit,
        ))
      const outcomes = await batch(
        `DELETE FROM outcomes WHERE (project_id, hour, key_id, outcome, reason, category) IN
           (SELECT project_id, hour, key_id, outcome, reason, category FROM outcomes
            WHERE hour < $1 ORDER BY hour LIMIT $2)`,
        cutoff,
        limit,
      )
      // The issue chart's hours follow the events (as on SQLite); `issue_facets` stay with
      // their issue, like its count.
      const hours = await batch(
        `DELETE FROM issue_hours WHERE (issue_id, hour) IN
           (SELECT issue_id, hour FROM issue_hours WHERE hour <= $1 LIMIT $2)`,
        cutoff - HOUR,
        limit,
      )
      return { events: dropped + deleted, sessions, outcomes, derived: ids + hours }
    },
  }
}
