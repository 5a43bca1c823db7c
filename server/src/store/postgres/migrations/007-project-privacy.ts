/**
 * Each project's data-scrubbing and inbound-filter settings (privacy/settings.ts), one JSON
 * document per project. A project without a row has the settings of a new project (scrubbing
 * on, browser-extension and web-crawler filters on); the projects that exist now get a row with
 * scrubbing on and every filter off, so no event they kept before is dropped unasked.
 */
export const sql = `
CREATE TABLE project_privacy (
  project_id BIGINT PRIMARY KEY REFERENCES projects(id),
  settings TEXT NOT NULL,
  updated_at BIGINT NOT NULL
);
INSERT INTO project_privacy (project_id, settings, updated_at)
SELECT id, '{"scrub":true,"scrubDefaults":true,"sensitiveFields":[],"safeFields":[],"scrubIp":false,"filters":{"localhost":false,"browserExtensions":false,"legacyBrowsers":false,"webCrawlers":false,"errorMessages":[],"releases":[],"clientIps":[]}}', 0 FROM projects;
`
