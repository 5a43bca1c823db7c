/**
 * User and API token rows as both stores read them, and their mapping to the store types.
 * Shared so the SQLite and PostgreSQL stores cannot map a column differently.
 */

import type { ApiToken, User } from '../model.ts'
import { TOKEN_SCOPES } from '../team-types.ts'

/** A `UserRow` as the SQL returns it (snake_case columns). */
export interface UserRow {
  id: number
  email: string
  password_hash: string
  is_admin: number
  created_at: number
  deactivated_at: number | null
}

/** A `TokenRow` as the SQL returns it (snake_case columns). */
export interface TokenRow {
  id: number
  user_id: number
  name: string
  created_at: number
  revoked_at: number | null
  scopes: string
}

/** The `scopes` column: space-separated names; unknown words are dropped. */
export const parseScopes = (s: string) => TOKEN_SCOPES.filter((x) => s.split(' ').includes(x))

/** Maps a `UserRow` to the store's `User`. */
export const toUser = (r: UserRow): User => ({
  id: r.id,
  email: r.email,
  passwordHash: r.password_hash,
  isAdmin: r.is_admin === 1,
  createdAt: r.created_at,
  deactivatedAt: r.deactivated_at,
})

/** Maps a `TokenRow` to the store's `ApiToken`. */
export const toToken = (r: TokenRow): ApiToken => ({
  id: r.id,
  userId: r.user_id,
  name: r.name,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
  scopes: parseScopes(r.scopes),
})
