/**
 * Team and membership rows as both stores read them, and their mapping to the store types.
 * Shared so the SQLite and PostgreSQL stores cannot map a column differently.
 */
import type { Team, TeamMember, TeamRole } from '../team-types.ts'

/** A `teams` row (snake_case columns). */
export interface TeamRow {
  id: number
  slug: string
  name: string
  created_at: number
}

/** A `team_members` row joined with the user's e-mail. */
export interface MemberRow {
  team_id: number
  user_id: number
  email: string
  role: string
  created_at: number
}

/** The columns `MemberRow` is read with (team_members m JOIN users u). */
export const MEMBER_SELECT =
  'SELECT m.team_id, m.user_id, u.email, m.role, m.created_at FROM team_members m JOIN users u ON u.id = m.user_id'

/** A stored role; the column's CHECK constraint admits only these, anything else is read as viewer. */
export const toRole = (r: string): TeamRole => (r === 'admin' || r === 'member' ? r : 'viewer')

/** Maps a `TeamRow` to the store's `Team`. */
export const toTeam = (r: TeamRow): Team => ({
  id: r.id,
  slug: r.slug,
  name: r.name,
  createdAt: r.created_at,
})

/** Maps a `MemberRow` to the store's `TeamMember`. */
export const toMember = (r: MemberRow): TeamMember => ({
  teamId: r.team_id,
  userId: r.user_id,
  email: r.email,
  role: toRole(r.role),
  createdAt: r.created_at,
})
