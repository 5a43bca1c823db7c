/**
 * Event quotas (issue 3): one optional row per project. The counters of the current window
 * live in memory (ingest/quota.ts); only the configuration is stored.
 */
export const sql = `
CREATE TABLE project_quotas (
  project_id INTEGER PRIMARY KEY REFERENCES projects(id),
  events INTEGER NOT NULL,
  window_seconds INTEGER NOT NULL
);
`
