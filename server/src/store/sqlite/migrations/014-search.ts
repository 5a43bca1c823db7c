/**
 * The search indexes (docs/search.md), written in the ingest transaction:
 *
 * - `issue_tags`: per issue, tag key and value, how many of its events carried it and when
 *   first and last; one upsert per (issue, key, value) per group commit. The issue list's tag
 *   conditions and the issue page's distribution read it. `issue_tags_value` serves a tag
 *   value looked up across issues.
 * - `issues.users`: the distinct `user` tag values, the count of its `user` rows kept
 *   on the issue so the list can show and sort by it without counting.
 * - `events.search`: the event's tags and text in one compact string (search/event-tags.ts),
 *   for the search of one issue's events; it goes with its row when retention deletes it.
 * - `issue_text`: FTS5 trigram index (substring match, case-insensitive) of the issue's
 *   title, culprit and the text of the event that created it, keyed by the issue id.
 */
export const sql = `
ALTER TABLE events ADD COLUMN search TEXT;
ALTER TABLE issues ADD COLUMN users INTEGER NOT NULL DEFAULT 0;
CREATE TABLE issue_tags (
  issue_id INTEGER NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  times_seen INTEGER NOT NULL,
  first_seen INTEGER NOT NULL,
  last_seen INTEGER NOT NULL,
  PRIMARY KEY (issue_id, key, value)
) WITHOUT ROWID;
CREATE INDEX issue_tags_value ON issue_tags(key, value);
CREATE VIRTUAL TABLE issue_text USING fts5(body, tokenize = 'trigram');
INSERT INTO issue_text (rowid, body) SELECT id, title || ' ' || culprit FROM issues;
`
