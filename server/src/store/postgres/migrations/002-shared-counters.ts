/**
 * The same tables as SQLite's migration 008: each project's current quota window (charged in
 * the ingest transaction under the `project_quotas` row lock) and the login throttle's failures.
 */
export const sql = `
CREATE TABLE quota_windows (
  project_id BIGINT PRIMARY KEY REFERENCES projects(id),
  window_start BIGINT NOT NULL,
  window_seconds BIGINT NOT NULL,
  used BIGINT NOT NULL,
  limited SMALLINT NOT NULL DEFAULT 0
);
CREATE TABLE login_failures (
  key TEXT PRIMARY KEY,
  count BIGINT NOT NULL,
  last BIGINT NOT NULL
);
CREATE INDEX login_failures_last ON login_failures(last);
`
