/**
 * Teams own projects; users hold a role per team (`team_members`); API tokens carry scopes.
 *
 * Team 1 ("Default") is created here so every existing project has an owner at once (the
 * `team_id` default) and a fresh database's first project lands somewhere; the first admin
 * becomes its admin (on a fresh database `bootstrap.ts` adds that membership when it creates the
 * admin). Existing tokens get every scope, so they keep exactly the access their user has.
 * `projects.team_id` has no REFERENCES clause: SQLite refuses one on an added column with a
 * non-null default while foreign keys are on; the store only ever writes existing team ids.
 */
export const sql = `
CREATE TABLE teams (
  id INTEGER PRIMARY KEY,
  slug TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
INSERT INTO teams (id, slug, name, created_at)
  VALUES (1, 'default', 'Default', CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
CREATE TABLE team_members (
  team_id INTEGER NOT NULL REFERENCES teams(id),
  user_id INTEGER NOT NULL REFERENCES users(id),
  role TEXT NOT NULL CHECK (role IN ('admin', 'member', 'viewer')),
  created_at INTEGER NOT NULL,
  PRIMARY KEY (team_id, user_id)
);
CREATE INDEX team_members_user ON team_members(user_id);
INSERT INTO team_members (team_id, user_id, role, created_at)
  SELECT 1, id, 'admin', created_at FROM users WHERE is_admin = 1 ORDER BY id LIMIT 1;
ALTER TABLE projects ADD COLUMN team_id INTEGER NOT NULL DEFAULT 1;
CREATE INDEX projects_team ON projects(team_id);
ALTER TABLE api_tokens ADD COLUMN scopes TEXT NOT NULL DEFAULT 'read write admin';
`
