/**
 * Release health and cron monitors.
 *
 * Release health: every single-session update lands in `health_sessions` (one row per session
 * id, holding the worst category it reported), and the hourly rollups `health_hours` (session
 * counts per exclusive category) and `health_users` (each user's worst category per hour) are
 * kept in step in the same transaction, so a session is counted once however often it is sent.
 *
 * Crons: `monitors` (created from check-ins), `monitor_environments` (schedule state per
 * environment: next expected run, consecutive failures), `monitor_checkins` (the run history,
 * including the clock's `missed` and `timeout` runs; a missed run's id is derived from its
 * environment and expected time, so it can be recorded only once), and `clock_leases` (which
 * node runs a background clock, and the last time it processed).
 */
export const sql = `
CREATE TABLE health_sessions (
  project_id INTEGER NOT NULL,
  sid TEXT NOT NULL,
  release TEXT NOT NULL,
  environment TEXT NOT NULL,
  hour INTEGER NOT NULL,
  did TEXT,
  category INTEGER NOT NULL,
  status TEXT NOT NULL,
  errors INTEGER NOT NULL,
  started INTEGER NOT NULL,
  updated INTEGER NOT NULL,
  PRIMARY KEY (project_id, sid)
) WITHOUT ROWID;
CREATE TABLE health_hours (
  project_id INTEGER NOT NULL,
  release TEXT NOT NULL,
  environment TEXT NOT NULL,
  hour INTEGER NOT NULL,
  sessions INTEGER NOT NULL DEFAULT 0,
  healthy INTEGER NOT NULL DEFAULT 0,
  errored INTEGER NOT NULL DEFAULT 0,
  unhandled INTEGER NOT NULL DEFAULT 0,
  abnormal INTEGER NOT NULL DEFAULT 0,
  crashed INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, release, environment, hour)
) WITHOUT ROWID;
CREATE INDEX health_hours_project_hour ON health_hours(project_id, hour);
CREATE TABLE health_users (
  project_id INTEGER NOT NULL,
  release TEXT NOT NULL,
  environment TEXT NOT NULL,
  hour INTEGER NOT NULL,
  did TEXT NOT NULL,
  category INTEGER NOT NULL,
  PRIMARY KEY (project_id, release, environment, hour, did)
) WITHOUT ROWID;

CREATE TABLE monitors (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects(id),
  slug TEXT NOT NULL,
  schedule_type TEXT NOT NULL,
  schedule_value TEXT NOT NULL,
  schedule_unit TEXT,
  timezone TEXT NOT NULL,
  checkin_margin INTEGER NOT NULL,
  max_runtime INTEGER NOT NULL,
  failure_issue_threshold INTEGER NOT NULL,
  recovery_threshold INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (project_id, slug)
);
CREATE TABLE monitor_environments (
  id INTEGER PRIMARY KEY,
  monitor_id INTEGER NOT NULL REFERENCES monitors(id),
  environment TEXT NOT NULL,
  status TEXT NOT NULL,
  last_checkin INTEGER,
  next_checkin INTEGER,
  next_checkin_latest INTEGER,
  failures INTEGER NOT NULL DEFAULT 0,
  UNIQUE (monitor_id, environment)
);
CREATE INDEX monitor_environments_due ON monitor_environments(next_checkin_latest)
  WHERE next_checkin_latest IS NOT NULL;
CREATE TABLE monitor_checkins (
  id INTEGER PRIMARY KEY,
  monitor_id INTEGER NOT NULL REFERENCES monitors(id),
  environment_id INTEGER NOT NULL REFERENCES monitor_environments(id),
  check_in_id TEXT NOT NULL,
  status TEXT NOT NULL,
  date_added INTEGER NOT NULL,
  date_updated INTEGER NOT NULL,
  expected_time INTEGER,
  timeout_at INTEGER,
  duration INTEGER,
  release TEXT,
  trace_id TEXT,
  event_id TEXT,
  event_pending INTEGER NOT NULL DEFAULT 0,
  UNIQUE (monitor_id, check_in_id)
);
CREATE INDEX monitor_checkins_timeline ON monitor_checkins(monitor_id, date_added, id);
CREATE INDEX monitor_checkins_open ON monitor_checkins(environment_id, id)
  WHERE status = 'in_progress';
CREATE INDEX monitor_checkins_timeout ON monitor_checkins(timeout_at)
  WHERE status = 'in_progress';
CREATE INDEX monitor_checkins_pending ON monitor_checkins(id) WHERE event_pending = 1;

CREATE TABLE clock_leases (
  name TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  last_tick INTEGER NOT NULL
);
`
