/**
 * Accounts beyond one admin: a user can be deactivated (`users.deactivated_at`: sessions and
 * tokens of the user are refused while it is set), one-time links for invitations and password
 * resets (`account_links`: only the SHA-256 of the link's secret is stored, like API tokens), and
 * the audit log of administrative actions (`audit_log`, newest first by id; `details` is JSON
 * text). The audit log has no foreign keys: its rows outlive what they name.
 */
export const sql = `
ALTER TABLE users ADD COLUMN deactivated_at INTEGER;
CREATE TABLE account_links (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('invite', 'reset')),
  token_hash TEXT NOT NULL UNIQUE,
  email TEXT NOT NULL,
  user_id INTEGER REFERENCES users(id),
  is_admin INTEGER NOT NULL DEFAULT 0,
  created_by INTEGER REFERENCES users(id),
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER,
  revoked_at INTEGER
);
CREATE INDEX account_links_kind ON account_links(kind, expires_at);
CREATE TABLE audit_log (
  id INTEGER PRIMARY KEY,
  at INTEGER NOT NULL,
  actor_user_id INTEGER,
  actor_kind TEXT NOT NULL CHECK (actor_kind IN ('user', 'admin-token', 'system')),
  action TEXT NOT NULL,
  project_id INTEGER,
  target TEXT NOT NULL,
  details TEXT NOT NULL
);
CREATE INDEX audit_log_action ON audit_log(action, id);
`
