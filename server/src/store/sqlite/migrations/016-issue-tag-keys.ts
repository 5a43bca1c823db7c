/**
 * `issues.tag_keys`: the promoted tag keys the issue has carried, one bit each
 * (store/tag-key-mask.ts), so `has:` and `!has:` of them read the issue row instead of probing
 * `issue_tags` once per issue (docs/search.md). Set here from the `issue_tags` rows so far, one
 * pass of `issue_tags_value` per key (the bits written out: a migration never changes); ingest
 * and the search backfill keep it since.
 */
export const sql = `
ALTER TABLE issues ADD COLUMN tag_keys INTEGER NOT NULL DEFAULT 0;
UPDATE issues SET tag_keys = tag_keys | 1 WHERE id IN (SELECT issue_id FROM issue_tags WHERE key = 'level');
UPDATE issues SET tag_keys = tag_keys | 2 WHERE id IN (SELECT issue_id FROM issue_tags WHERE key = 'dist');
UPDATE issues SET tag_keys = tag_keys | 4 WHERE id IN (SELECT issue_id FROM issue_tags WHERE key = 'transaction');
UPDATE issues SET tag_keys = tag_keys | 8 WHERE id IN (SELECT issue_id FROM issue_tags WHERE key = 'server_name');
UPDATE issues SET tag_keys = tag_keys | 16 WHERE id IN (SELECT issue_id FROM issue_tags WHERE key = 'url');
UPDATE issues SET tag_keys = tag_keys | 32 WHERE id IN (SELECT issue_id FROM issue_tags WHERE key = 'browser');
UPDATE issues SET tag_keys = tag_keys | 64 WHERE id IN (SELECT issue_id FROM issue_tags WHERE key = 'browser.name');
UPDATE issues SET tag_keys = tag_keys | 128 WHERE id IN (SELECT issue_id FROM issue_tags WHERE key = 'os');
UPDATE issues SET tag_keys = tag_keys | 256 WHERE id IN (SELECT issue_id FROM issue_tags WHERE key = 'os.name');
UPDATE issues SET tag_keys = tag_keys | 512 WHERE id IN (SELECT issue_id FROM issue_tags WHERE key = 'runtime');
UPDATE issues SET tag_keys = tag_keys | 1024 WHERE id IN (SELECT issue_id FROM issue_tags WHERE key = 'device');
UPDATE issues SET tag_keys = tag_keys | 2048 WHERE id IN (SELECT issue_id FROM issue_tags WHERE key = 'user');
UPDATE issues SET tag_keys = tag_keys | 4096 WHERE id IN (SELECT issue_id FROM issue_tags WHERE key = 'user.id');
UPDATE issues SET tag_keys = tag_keys | 8192 WHERE id IN (SELECT issue_id FROM issue_tags WHERE key = 'user.email');
UPDATE issues SET tag_keys = tag_keys | 16384 WHERE id IN (SELECT issue_id FROM issue_tags WHERE key = 'user.username');
UPDATE issues SET tag_keys = tag_keys | 32768 WHERE id IN (SELECT issue_id FROM issue_tags WHERE key = 'user.ip');
UPDATE issues SET tag_keys = tag_keys | 65536 WHERE id IN (SELECT issue_id FROM issue_tags WHERE key = 'handled');
UPDATE issues SET tag_keys = tag_keys | 131072 WHERE id IN (SELECT issue_id FROM issue_tags WHERE key = 'mechanism');
`
