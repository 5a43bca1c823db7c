/**
 * Counters every node of a cluster must share instead of keeping in memory: the current
 * window of each project's event quota (charged inside the ingest transaction, so the quota
 * holds whichever node receives the events), the failed sign-ins of the login throttle, and
 * the alert outbox: a rule matched by a stored event, written in the transaction that stored it.
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
CREATE TABLE alert_triggers (
  id INTEGER PRIMARY KEY,
  rule_id INTEGER NOT NULL REFERENCES alert_rules(id),
  project_id INTEGER NOT NULL,
  issue_id INTEGER NOT NULL,
  trigger_kind TEXT NOT NULL,
  trigger_id TEXT NOT NULL,
  event_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  claimed_by TEXT,
  lease_until INTEGER,
  UNIQUE (rule_id, issue_id, trigger_kind, trigger_id)
);
`
