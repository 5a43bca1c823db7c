/**
 * `events.issue_id` without a foreign key. The key had PostgreSQL check every inserted event
 * against `issues` with `SELECT 1 … FOR KEY SHARE`: a row lock on the event's issue taken by
 * every group commit of every node, which on a hot issue turns concurrent lockers into a
 * multixact written to that one row, and, with the trigger's work around the check, about
 * 30 % of a group commit's statement time (docs/postgresql.md). The ingest transaction writes
 * an event only with the issue it just read or created in the same transaction, and no path
 * deletes an issue that has events (the only `DELETE FROM issues` undoes a lost claim before
 * any event names it), so the key checked what the transaction already guarantees. SQLite
 * keeps its key: one writer, no row locks.
 */
export const sql = `
ALTER TABLE events DROP CONSTRAINT IF EXISTS events_issue_id_fkey;
`
