/**
 * Smaller `events` rows, as SQLite's migration 011 and the payload codec (payload-codec.ts):
 *
 * - `payload` becomes `bytea` holding the codec's encoding (deflate with a preset dictionary,
 *   ≈280 bytes for the 3 KB bench event). Measured on 20,000 bench events: 2,083 bytes per event
 *   with TEXT (TOAST's pglz left 1,890 bytes in line, four rows a page) against 466 with the
 *   codec (docs/storage-size.md). Rows stored before become their UTF-8 bytes, which the codec
 *   reads as plain JSON (first byte `{`); the type change rewrites the table once.
 * - `events_issue` ascends: a B-tree scans it backwards for `ORDER BY id DESC`, and inserts at
 *   the right end of an issue's range fill pages instead of splitting them at the left end.
 *   Measured on 50,000 events in 3 issues: 57 → 32 bytes per event.
 */
export const sql = `
ALTER TABLE events ALTER COLUMN payload TYPE bytea USING convert_to(payload, 'UTF8');
DROP INDEX events_issue;
CREATE INDEX events_issue ON events(issue_id, id);
`
