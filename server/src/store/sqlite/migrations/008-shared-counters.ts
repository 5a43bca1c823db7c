/**
 * Counters every node of a cluster must share instead of keeping in memory: the current
 * window of each project's event quota (charged inside the ingest transaction, so the quota
 * holds whichever node receives the events) and the failed sign-ins of the login throttle.
 */
export const sql = `
CREATE TABLE quota_windows (
  project_id INTEGER PRIMARY KEY REFERENCES projects(id),
  window_start INTEGER NOT NULL,
  window_seconds INTEGER NOT NULL,
  used INTEGER NOT NULL,
  limited INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE login_failures (
  key TEXT PRIMARY KEY,
  count INTEGER NOT NULL,
  last INTEGER NOT NULL
);
CREATE INDEX login_failures_last ON login_failures(last);
`
