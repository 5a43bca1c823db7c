/**
 * Two small summaries of `events`, maintained at ingest in the same transaction (one statement
 * per distinct row per group commit, see `ingest.ts`), so that no page reads grow with the number
 * of events (measured at 1 M events: docs/pages-at-scale.md).
 *
 * `issue_facets`: which environments, releases and components each issue has seen. The issue
 * list's filters and the filter choices read it instead of scanning `events` (a filter value no
 * issue had took 14 s, the choices 11 s). The primary key answers "has issue X seen V" and lets
 * retention delete an issue's rows; `issue_facets_project` answers "which values has project P".
 *
 * `issue_hours`: events per issue per hour, the issue page's chart (counting a 1 M-event issue's
 * index entries took 0.4 s; this reads at most 24 rows a day).
 *
 * The backfill reads `events` once for the facets (a temporary table of distinct combinations)
 * and `events_issue_received` once for the hours.
 */
export const sql = `
CREATE TABLE issue_facets (
  issue_id INTEGER NOT NULL,
  kind TEXT NOT NULL,
  value TEXT NOT NULL,
  project_id INTEGER NOT NULL,
  PRIMARY KEY (issue_id, kind, value)
) WITHOUT ROWID;
CREATE INDEX issue_facets_project ON issue_facets(project_id, kind, value);
CREATE TEMP TABLE issue_facets_fill AS
  SELECT DISTINCT issue_id, project_id, environment, release, component FROM events;
INSERT OR IGNORE INTO issue_facets (issue_id, kind, value, project_id)
  SELECT issue_id, 'environment', environment, project_id FROM issue_facets_fill
  WHERE environment IS NOT NULL AND environment != '';
INSERT OR IGNORE INTO issue_facets (issue_id, kind, value, project_id)
  SELECT issue_id, 'release', release, project_id FROM issue_facets_fill
  WHERE release IS NOT NULL AND release != '';
INSERT OR IGNORE INTO issue_facets (issue_id, kind, value, project_id)
  SELECT issue_id, 'component', component, project_id FROM issue_facets_fill
  WHERE component IS NOT NULL AND component != '';
DROP TABLE issue_facets_fill;
CREATE TABLE issue_hours (
  issue_id INTEGER NOT NULL,
  hour INTEGER NOT NULL,
  events INTEGER NOT NULL,
  PRIMARY KEY (issue_id, hour)
) WITHOUT ROWID;
INSERT INTO issue_hours (issue_id, hour, events)
  SELECT issue_id, (received / 3600000) * 3600000 AS h, COUNT(*) FROM events GROUP BY issue_id, h;
`
