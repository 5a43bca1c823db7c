import { NEW_PROJECT_PRIVACY, settingsFrom } from '../../privacy/settings.ts'
import type { PrivacyStore } from '../privacy-types.ts'
import type { SqlPort } from '../sql/port.ts'
import { sql } from '../sql/statement.ts'

/** Project privacy settings, written once for both backends (one JSON document per project). */
export function privacyQueries(db: SqlPort): PrivacyStore {
  return {
    getPrivacySettings: async (projectId) => {
      const r = await db.first<{ settings: string }>(
        sql`SELECT settings FROM project_privacy WHERE project_id = ${projectId}`,
      )
      if (r === undefined) return NEW_PROJECT_PRIVACY
      let parsed: unknown
      try {
        parsed = JSON.parse(r.settings)
      } catch {
        // Written by this code only; a broken row falls back to the defaults, scrubbing on.
        parsed = undefined
      }
      return settingsFrom(parsed)
    },
    setPrivacySettings: async (projectId, settings) => {
      const text = JSON.stringify(settingsFrom(settings))
      await db.run(
        sql`INSERT INTO project_privacy (project_id, settings, updated_at)
            VALUES (${projectId}, ${text}, ${Date.now()})
            ON CONFLICT (project_id) DO UPDATE
            SET settings = excluded.settings, updated_at = excluded.updated_at`,
      )
    },
  }
}
