/**
 * Releases recorded through the release API that sentry-cli and the bundler plugins call
 * (`releases new`, `finalize`, `set-commits`, `deploys new`; docs/api.md):
 *
 * - `releases`: one row per version of a team (Sentry's organisation), with its dates (epoch
 *   ms), status and the commits `set-commits` recorded (how many, the newest one's id);
 * - `release_projects`: which of the team's projects the release ships;
 * - `release_deploys`: each deploy of a release to an environment.
 *
 * Events name their release by the same version string; nothing here is needed to ingest them.
 */
export const sql = `
CREATE TABLE releases (
  id INTEGER PRIMARY KEY,
  team_id INTEGER NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  version TEXT NOT NULL,
  url TEXT,
  date_created INTEGER NOT NULL,
  date_started INTEGER,
  date_released INTEGER,
  status TEXT NOT NULL DEFAULT 'open',
  commit_count INTEGER NOT NULL DEFAULT 0,
  last_commit TEXT,
  UNIQUE (team_id, version)
);
CREATE INDEX releases_created ON releases(team_id, date_created);
CREATE TABLE release_projects (
  release_id INTEGER NOT NULL REFERENCES releases(id) ON DELETE CASCADE,
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  PRIMARY KEY (release_id, project_id)
);
CREATE INDEX release_projects_project ON release_projects(project_id);
CREATE TABLE release_deploys (
  id INTEGER PRIMARY KEY,
  release_id INTEGER NOT NULL REFERENCES releases(id) ON DELETE CASCADE,
  environment TEXT NOT NULL,
  name TEXT,
  url TEXT,
  date_started INTEGER,
  date_finished INTEGER NOT NULL
);
CREATE INDEX release_deploys_release ON release_deploys(release_id, id);
`
