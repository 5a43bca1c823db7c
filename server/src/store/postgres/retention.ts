import type pg from 'pg'
import type { RetentionStore } from '../types.ts'
import { run } from './db.ts'

/**
 * Retention on PostgreSQL: small batched deletes, each its own statement (autocommit), so no
 * batch holds row locks ingest waits for. The idempotency keys in `event_ids` go with their
 * events (a resend of an event older than the retention is stored again, as on SQLite).
 * Issues keep their `times_seen`.
 */
export function pgRetention(pool: pg.Pool): RetentionStore {
  const batch = (sql: string, cutoff: number, limit: number) => run(pool, sql, [cutoff, limit])
  return {
    pruneBefore: async (cutoff, limit) => {
      const events = await batch(
        `DELETE FROM events WHERE (id, received) IN
           (SELECT id, received FROM events WHERE received < $1 ORDER BY received LIMIT $2)`,
        cutoff,
        limit,
      )
      await batch(
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
      return { events, sessions, outcomes }
    },
  }
}
