/**
 * Release files uploaded one at a time by sentry-cli 2.x's legacy `releases files <version>
 * upload` (docs/source-maps.md "Release files"). Each file is stored as a one-file artifact
 * bundle (`artifact_bundles`, `artifact_files`, `artifact_links`), so resolution, retention and
 * the project links treat it as any bundle; this table holds what the release-file API shows of
 * it and makes its name unique within the release and dist:
 *
 * - `release_files`: the team's release (version) and dist ('' for none) it was uploaded for,
 *   its name (the URL, `~/app.min.js`), the headers sent with it (a JSON object), its sha1 and
 *   size. Deleting the bundle (the API's delete, or retention) deletes the row.
 */
export const sql = `
CREATE TABLE release_files (
  id INTEGER PRIMARY KEY,
  team_id INTEGER NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  release TEXT NOT NULL,
  dist TEXT NOT NULL,
  name TEXT NOT NULL,
  bundle_id INTEGER NOT NULL UNIQUE REFERENCES artifact_bundles(id) ON DELETE CASCADE,
  sha1 TEXT NOT NULL,
  size INTEGER NOT NULL,
  headers TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  UNIQUE (team_id, release, dist, name)
);
`
