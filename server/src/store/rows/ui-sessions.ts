/**
 * UI session rows (joined with their user) as both stores read them, and their mapping.
 * Shared so the SQLite and PostgreSQL stores cannot map a column differently.
 */
import type { UiSession } from '../account-store.ts'
import type { User } from '../model.ts'

/** A `SessionRow` as the SQL returns it (snake_case columns). */
export interface SessionRow {
  id: number
  user_id: number
  csrf_token: string
  created_at: number
  last_seen_at: number
  expires_at: number
}

/** A `SessionUserRow` as the SQL returns it (snake_case columns). */
export interface SessionUserRow extends SessionRow {
  email: string
  password_hash: string
  is_admin: number
  user_created_at: number
  deactivated_at: number | null
}

/** Maps a `SessionRow` to the store's `UiSession`. */
export const toSession = (r: SessionRow): UiSession => ({
  id: r.id,
  userId: r.user_id,
  csrfToken: r.csrf_token,
  createdAt: r.created_at,
  lastSeenAt: r.last_seen_at,
  expiresAt: r.expires_at,
})

/** Maps a `SessionUserRow` to the store's `User`. */
export const toUser = (r: SessionUserRow): User => ({
  id: r.user_id,
  email: r.email,
  passwordHash: r.password_hash,
  isAdmin: r.is_admin === 1,
  createdAt: r.user_created_at,
  deactivatedAt: r.deactivated_at,
})
