/**
 * Web UI sessions. Only the SHA-256 of the cookie secret is stored, so a copy of the
 * database cannot be replayed as a login; the CSRF token is per session.
 */
export const sql = `
CREATE TABLE ui_sessions (
  id INTEGER PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  user_id INTEGER NOT NULL REFERENCES users(id),
  csrf_token TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX ui_sessions_expires ON ui_sessions(expires_at);
CREATE INDEX ui_sessions_user ON ui_sessions(user_id);
`
