/**
 * Event quotas: one optional row per project. The counters of the current window lived in
 * memory when this was written; 010-shared-counters.ts moved them into the database.
 */
export const sql = `
CREATE TABLE project_quotas (
  project_id INTEGER PRIMARY KEY REFERENCES projects(id),
  events INTEGER NOT NULL,
  window_seconds INTEGER NOT NULL
);
`
