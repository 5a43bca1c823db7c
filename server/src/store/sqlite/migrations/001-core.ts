/** Core schema: projects, keys, issues, grouping hashes, events, outcomes, accounts. */
export const sql = `
CREATE TABLE projects (
  id INTEGER PRIMARY KEY,
  slug TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TABLE project_keys (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects(id),
  public_key TEXT NOT NULL UNIQUE,
  label TEXT NOT NULL,
  component TEXT,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);
CREATE INDEX project_keys_project ON project_keys(project_id);
CREATE TABLE issues (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects(id),
  title TEXT NOT NULL,
  culprit TEXT NOT NULL,
  level TEXT NOT NULL,
  type TEXT,
  value TEXT,
  status TEXT NOT NULL DEFAULT 'unresolved',
  first_seen INTEGER NOT NULL,
  last_seen INTEGER NOT NULL,
  times_seen INTEGER NOT NULL,
  grouping_version TEXT NOT NULL
);
CREATE INDEX issues_project_last_seen ON issues(project_id, last_seen DESC, id DESC);
CREATE TABLE grouphashes (
  project_id INTEGER NOT NULL,
  hash TEXT NOT NULL,
  grouping_version TEXT NOT NULL,
  issue_id INTEGER NOT NULL REFERENCES issues(id),
  PRIMARY KEY (project_id, hash)
) WITHOUT ROWID;
CREATE TABLE events (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL,
  event_id TEXT NOT NULL,
  issue_id INTEGER NOT NULL REFERENCES issues(id),
  key_id INTEGER NOT NULL,
  timestamp INTEGER NOT NULL,
  received INTEGER NOT NULL,
  level TEXT NOT NULL,
  release TEXT,
  environment TEXT,
  component TEXT,
  payload TEXT NOT NULL,
  UNIQUE (project_id, event_id)
);
CREATE INDEX events_issue ON events(issue_id, id DESC);
CREATE TABLE outcomes (
  project_id INTEGER NOT NULL,
  key_id INTEGER NOT NULL,
  hour INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  reason TEXT NOT NULL,
  category TEXT NOT NULL,
  quantity INTEGER NOT NULL,
  PRIMARY KEY (project_id, hour, key_id, outcome, reason, category)
) WITHOUT ROWID;
CREATE TABLE users (
  id INTEGER PRIMARY KEY,
  email TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  is_admin INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL
);
CREATE TABLE api_tokens (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id),
  name TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);
`
