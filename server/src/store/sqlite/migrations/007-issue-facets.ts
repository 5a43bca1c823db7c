/**
 * Which environments, releases and components each issue has seen, maintained at ingest (one
 * `INSERT OR IGNORE` per distinct value per group commit, see `ingest.ts`). The issue list's
 * filters and the filter choices read this instead of scanning `events`: at 1 M events the
 * `EXISTS` scan over `events` for a value no issue has took 14 s and the choices 11 s, while this
 * table holds one row per issue and value (see docs/pages-at-scale.md).
 *
 * The primary key answers "does issue X have value V" and lets retention delete an issue's rows;
 * `issue_facets_project` answers "which values does project P have" and "which issues have V".
 * The backfill reads `events` once (a temporary table of the distinct combinations).
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
`
