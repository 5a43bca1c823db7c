/**
 * Room on each `issue_tags` page for the next version of its rows: the counter fold rewrites
 * every (issue, key, value) row an event touched, and an update that changes no indexed column
 * and finds room on its page is heap-only (HOT): it writes no entry in the table's two
 * indexes. With full pages (the default fillfactor 100) 62 % of the bench's 1,000-issue load's
 * upserts moved their row to another page and inserted into both indexes; with 70 the WAL per
 * event fell by a fifth (docs/postgresql.md). Metadata only: pages written from now on keep
 * the room, and stored rows move to such pages as they are updated. `issue_hours` was left at
 * 100: nine in ten of its updates were already HOT.
 */
export const sql = `
ALTER TABLE issue_tags SET (fillfactor = 70);
`
