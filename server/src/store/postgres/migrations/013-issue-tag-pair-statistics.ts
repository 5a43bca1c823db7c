/**
 * Statistics of `issue_tags`' (key, value) pairs: the planner otherwise multiplies the key's
 * and the value's frequencies as if they were independent, and a value is common within its
 * key only (`browser.name:Firefox`, a third of the issues at the bench's scale, was estimated
 * at 1 row, `shard:[3, 7]` at 1,304 of 19,998), so a search chose, depending on the sample, a
 * hash join over every row of the values instead of a probe per issue in the sort order. 300
 * pairs in the list (the default 100 kept the values of `shard` but not of `browser.name`);
 * `ANALYZE` fills it now instead of at autovacuum's next pass. No SQLite counterpart: its
 * planner takes the index for these and the answers do not change.
 */
export const sql = `
CREATE STATISTICS issue_tags_key_value (mcv) ON key, value FROM issue_tags;
ALTER STATISTICS issue_tags_key_value SET STATISTICS 300;
ANALYZE issue_tags;
`
