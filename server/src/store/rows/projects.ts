/**
 * Project and DSN key rows as both stores read them, and their mapping to the store types.
 * Shared so the SQLite and PostgreSQL stores cannot map a column differently.
 */
import type { Project, ProjectKey } from '../model.ts'

/** A `ProjectRow` as the SQL returns it (snake_case columns). */
export interface ProjectRow {
  id: number
  slug: string
  name: string
  created_at: number
  team_id: number
}

/** A `KeyRow` as the SQL returns it (snake_case columns). */
export interface KeyRow {
  id: number
  project_id: number
  public_key: string
  label: string
  component: string | null
  created_at: number
  revoked_at: number | null
}

/** Maps a `ProjectRow` to the store's `Project`. */
export const toProject = (r: ProjectRow): Project => ({
  id: r.id,
  slug: r.slug,
  name: r.name,
  createdAt: r.created_at,
  teamId: r.team_id,
})

/** Maps a `KeyRow` to the store's `ProjectKey`. */
export const toKey = (r: KeyRow): ProjectKey => ({
  id: r.id,
  projectId: r.project_id,
  publicKey: r.public_key,
  label: r.label,
  component: r.component,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
})
