/**
 * Triage and alerts: the For review flag and ignore conditions on issues, the
 * per-issue time index the frequency alerts count with, one active component key per label,
 * alert rules and the delivery log (the outbox the alert worker drains).
 */
export const sql = `
ALTER TABLE issues ADD COLUMN for_review INTEGER NOT NULL DEFAULT 1;
UPDATE issues SET for_review = 0 WHERE status <> 'unresolved';
ALTER TABLE issues ADD COLUMN ignore_until INTEGER;
ALTER TABLE issues ADD COLUMN ignore_until_seen INTEGER;
CREATE INDEX issues_project_status ON issues(project_id, status, for_review, last_seen DESC, id DESC);
CREATE INDEX issues_ignore_until ON issues(ignore_until) WHERE ignore_until IS NOT NULL;
CREATE INDEX events_issue_received ON events(issue_id, received);
CREATE UNIQUE INDEX project_keys_active_component ON project_keys(project_id, component)
  WHERE component IS NOT NULL AND revoked_at IS NULL;
CREATE TABLE alert_rules (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects(id),
  name TEXT NOT NULL,
  conditions TEXT NOT NULL,
  channel TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  deleted_at INTEGER
);
CREATE INDEX alert_rules_project ON alert_rules(project_id) WHERE deleted_at IS NULL;
CREATE TABLE alert_deliveries (
  id INTEGER PRIMARY KEY,
  rule_id INTEGER NOT NULL REFERENCES alert_rules(id),
  project_id INTEGER NOT NULL,
  issue_id INTEGER NOT NULL,
  trigger_kind TEXT NOT NULL,
  trigger_id TEXT NOT NULL,
  event_id TEXT,
  channel TEXT NOT NULL,
  message TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending',
  attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  next_attempt_at INTEGER NOT NULL,
  claimed_by TEXT,
  lease_until INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  sent_at INTEGER,
  UNIQUE (rule_id, issue_id, trigger_kind, trigger_id)
);
CREATE INDEX alert_deliveries_due ON alert_deliveries(next_attempt_at) WHERE status = 'pending';
CREATE INDEX alert_deliveries_project ON alert_deliveries(project_id, id DESC);
`
