/**
 * `events_issue` on `(issue_id)` instead of `(issue_id, id DESC)`: every SQLite index ends in
 * the rowid (`id`), so `(issue_id)` serves the same reads (an issue's events newest first, the
 * keyset `id < ?`, the neighbours by id: checked with EXPLAIN QUERY PLAN in
 * sqlite/event-indexes.test.ts) without storing the id twice, and its ascending order turns the
 * left-end inserts of the descending index (half-full pages) into appends. Measured with
 * `dbstat` on 20,000 bench events: 21.7 → 9.4 bytes per event (docs/storage-size.md).
 */
export const sql = `
DROP INDEX events_issue;
CREATE INDEX events_issue ON events(issue_id);
`
