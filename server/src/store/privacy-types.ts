import type { PrivacySettings } from '../privacy/settings.ts'

/** Each project's data-scrubbing and inbound-filter settings (store/queries/project-privacy.ts). */
export interface PrivacyStore {
  /** The project's settings; a project without stored settings has a new project's. */
  getPrivacySettings(projectId: number): Promise<PrivacySettings>
  /** Replaces the project's settings (validated by the caller: privacy/settings.ts). */
  setPrivacySettings(projectId: number, settings: PrivacySettings): Promise<void>
}
