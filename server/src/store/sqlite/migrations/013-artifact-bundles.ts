/**
 * Source-map artifact bundles uploaded by stock `sentry-cli` (docs/source-maps.md):
 *
 * - `artifact_chunks`: the chunks of a bundle upload, by team (the `--org`) and sha1, until the
 *   assemble call joins them (then deleted) or the maintenance job removes them after an hour;
 * - `artifact_bundles`: one row per distinct bundle of a team (`checksum` = sha1 of its bytes),
 *   so a bundle uploaded again, or for another project, is stored once;
 * - `artifact_files`: each file of a bundle (deflated), with its manifest type, URL and debug ID;
 *   looked up by debug ID and type, or by URL;
 * - `artifact_links`: which projects may resolve against a bundle, with the release and dist it
 *   was uploaded for ('' for none). Resolution always joins through it, so a debug ID sent in
 *   one project's event never reads another project's bundle.
 */
export const sql = `
CREATE TABLE artifact_chunks (
  team_id INTEGER NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  sha1 TEXT NOT NULL,
  data BLOB NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (team_id, sha1)
);
CREATE INDEX artifact_chunks_created ON artifact_chunks(created_at);
CREATE TABLE artifact_bundles (
  id INTEGER PRIMARY KEY,
  team_id INTEGER NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  checksum TEXT NOT NULL,
  size INTEGER NOT NULL,
  file_count INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  last_used_at INTEGER NOT NULL,
  UNIQUE (team_id, checksum)
);
CREATE TABLE artifact_files (
  bundle_id INTEGER NOT NULL REFERENCES artifact_bundles(id) ON DELETE CASCADE,
  ord INTEGER NOT NULL,
  file_type TEXT NOT NULL,
  url TEXT NOT NULL,
  debug_id TEXT,
  map_url TEXT,
  size INTEGER NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY (bundle_id, ord)
);
CREATE INDEX artifact_files_debug ON artifact_files(debug_id, file_type) WHERE debug_id IS NOT NULL;
CREATE INDEX artifact_files_url ON artifact_files(url, file_type);
CREATE TABLE artifact_links (
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  bundle_id INTEGER NOT NULL REFERENCES artifact_bundles(id) ON DELETE CASCADE,
  release TEXT NOT NULL,
  dist TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (project_id, bundle_id, release, dist)
);
CREATE INDEX artifact_links_bundle ON artifact_links(bundle_id);
`
