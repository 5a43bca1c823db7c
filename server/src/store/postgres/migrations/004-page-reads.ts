/**
 * The page-read summaries SQLite has had since its migration 007, so the PostgreSQL pages stop
 * scanning `events` too (measured at scale: docs/postgresql.md "Page reads at scale"), and both
 * backends answer the same after retention. Maintained at ingest in the same transaction (one
 * statement per table per group commit, rows from `store/issue-summaries.ts`).
 *
 * `issue_facets`: which environments, releases and components each issue has seen — the issue
 * list's filters and the filter choices. `issue_hours`: events per issue per hour — the issue
 * chart; retention removes its expired hours with the events.
 *
 * The backfill reads `events` once per table.
 */
export const sql = `
CREATE TABLE issue_facets (
  issue_id BIGINT NOT NULL,
  kind TEXT NOT NULL,
  value TEXT NOT NULL,
  project_id BIGINT NOT NULL,
  PRIMARY KEY (issue_id, kind, value)
);
CREATE INDEX issue_facets_project ON issue_facets(project_id, kind, value);
INSERT INTO issue_facets (issue_id, kind, value, project_id)
  SELECT DISTINCT issue_id, f.kind, f.value, project_id
  FROM events, LATERAL (VALUES ('environment', environment), ('release', release),
                               ('component', component)) AS f(kind, value)
  WHERE f.value IS NOT NULL AND f.value <> ''
ON CONFLICT DO NOTHING;
CREATE TABLE issue_hours (
  issue_id BIGINT NOT NULL,
  hour BIGINT NOT NULL,
  events BIGINT NOT NULL,
  PRIMARY KEY (issue_id, hour)
);
CREATE INDEX issue_hours_hour ON issue_hours(hour);
INSERT INTO issue_hours (issue_id, hour, events)
  SELECT issue_id, (received / 3600000) * 3600000 AS h, COUNT(*) FROM events GROUP BY issue_id, h;
`
