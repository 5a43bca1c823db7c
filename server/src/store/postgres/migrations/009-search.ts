/**
 * The search indexes, as SQLite's migration 014 (docs/search.md). `issue_text` is a plain
 * table with a `pg_trgm` GIN index: `ILIKE '%…%'` is the same substring match as SQLite's
 * FTS5 trigram table (pg_trgm ships in Debian's postgresql-15 package, contrib; it is a
 * trusted extension, so the database owner may create it). `events.search` is a column of the
 * partitioned `events`, so it follows its partitions and their retention.
 */
export const sql = `
CREATE EXTENSION IF NOT EXISTS pg_trgm;
ALTER TABLE events ADD COLUMN search TEXT;
ALTER TABLE issues ADD COLUMN users BIGINT NOT NULL DEFAULT 0;
CREATE TABLE issue_tags (
  issue_id BIGINT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  times_seen BIGINT NOT NULL,
  first_seen BIGINT NOT NULL,
  last_seen BIGINT NOT NULL,
  PRIMARY KEY (issue_id, key, value)
);
CREATE INDEX issue_tags_value ON issue_tags(key, value);
CREATE TABLE issue_text (issue_id BIGINT PRIMARY KEY, body TEXT NOT NULL);
CREATE INDEX issue_text_trgm ON issue_text USING gin (body gin_trgm_ops);
INSERT INTO issue_text (issue_id, body) SELECT id, title || ' ' || culprit FROM issues;
`
