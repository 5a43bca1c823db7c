/** A role a user holds in one team (what each allows: `http/permissions.ts`). */
export type TeamRole = 'admin' | 'member' | 'viewer'

/** Every role, most powerful first (for forms and validation). */
export const TEAM_ROLES: readonly TeamRole[] = ['admin', 'member', 'viewer']

/** The team every project belongs to before it is moved (seeded by the teams migration). */
export const DEFAULT_TEAM_ID = 1

import type { TokenScope } from './model.ts'

/** An API token's scope (the record type lives in model.ts). */
export type { TokenScope }

/** Every scope, narrowest first. */
export const TOKEN_SCOPES: readonly TokenScope[] = ['read', 'write', 'admin']

/** A team: a set of users with roles, owning projects. */
export interface Team {
  id: number
  slug: string
  name: string
  createdAt: number
}

/** One user's role in one team, with the user's e-mail for listings. */
export interface TeamMember {
  teamId: number
  userId: number
  email: string
  role: TeamRole
  createdAt: number
}

/** Teams, memberships and which team owns a project. */
export interface TeamStore {
  createTeam(name: string, slug: string): Promise<Team>
  listTeams(): Promise<Team[]>
  getTeam(id: number): Promise<Team | undefined>
  listMembers(teamId: number): Promise<TeamMember[]>
  /** The teams a user belongs to and the role in each. */
  membershipsOf(userId: number): Promise<{ teamId: number; role: TeamRole }[]>
  /** Adds a member or changes the role of one (upsert). */
  setMember(teamId: number, userId: number, role: TeamRole): Promise<void>
  removeMember(teamId: number, userId: number): Promise<boolean>
  /** Moves a project to another team; false when the project does not exist. */
  moveProject(projectId: number, teamId: number): Promise<boolean>
}
