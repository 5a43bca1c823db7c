import type { FastifyRequest } from 'fastify'
import { ApiError } from '../errors.ts'
import type { Principal } from '../http-kit/principal.ts'
import { slugify } from '../http-kit/slug.ts'
import type { Team, TeamMember, TeamRole } from '../store/team-types.ts'
import type { Store } from '../store/types.ts'
import { rolesOf } from './access.ts'
import { recordAccessChange } from './access-changes.ts'

/**
 * Team management shared by the API and the UI: the rules (a team keeps at least one admin,
 * members are existing users) live here, the routes only parse and answer.
 */

/** The teams the caller sees, each with the caller's role: all of them for the instance admin. */
export async function teamsOf(
  store: Store,
  principal: Principal,
): Promise<{ team: Team; role: TeamRole | null }[]> {
  const roles = await rolesOf(store, principal)
  const teams = await store.listTeams()
  return teams
    .filter((t) => principal.isAdmin || roles.has(t.id))
    .map((t) => ({ team: t, role: roles.get(t.id) ?? null }))
}

/** Creates a team with a free slug (the instance admin only; the route says so). */
export async function createTeam(req: FastifyRequest, store: Store, name: string): Promise<Team> {
  const base = slugify(name)
  for (let n = 1; n < 1000; n++) {
    try {
      const team = await store.createTeam(name, n === 1 ? base : `${base}-${n}`)
      await recordAccessChange(store, req, { kind: 'team.created', teamId: team.id, name })
      return team
    } catch (err) {
      if (!/unique/i.test(String(err))) throw err
    }
  }
  throw new ApiError('conflict', 'could not find a free slug for this team name')
}

const lastAdmin = (members: TeamMember[], userId: number): boolean =>
  members.filter((m) => m.role === 'admin').every((m) => m.userId === userId) &&
  members.some((m) => m.userId === userId && m.role === 'admin')

/** Adds an existing user (by e-mail) to a team or changes their role. */
export async function setMember(
  req: FastifyRequest,
  store: Store,
  teamId: number,
  email: string,
  role: TeamRole,
): Promise<TeamMember> {
  const user = await store.findUserByEmail(email)
  if (user === undefined)
    throw new ApiError('not_found', `there is no user with the e-mail ${email}: invite them first`)
  const members = await store.listMembers(teamId)
  const before = members.find((m) => m.userId === user.id)
  if (before?.role === role) return before
  if (role !== 'admin' && lastAdmin(members, user.id))
    throw new ApiError('conflict', 'a team keeps at least one admin: make someone else admin first')
  await store.setMember(teamId, user.id, role)
  await recordAccessChange(store, req, {
    kind: before === undefined ? 'member.added' : 'member.role_changed',
    teamId,
    userId: user.id,
    role,
  })
  const after = (await store.listMembers(teamId)).find((m) => m.userId === user.id)
  if (after === undefined) throw new Error('member vanished after upsert')
  return after
}

/** Removes a member; 404 when not a member, 409 for the team's last admin. */
export async function removeMember(
  req: FastifyRequest,
  store: Store,
  teamId: number,
  userId: number,
): Promise<void> {
  const members = await store.listMembers(teamId)
  if (!members.some((m) => m.userId === userId)) throw new ApiError('not_found', 'no such member')
  if (lastAdmin(members, userId))
    throw new ApiError('conflict', 'a team keeps at least one admin: make someone else admin first')
  await store.removeMember(teamId, userId)
  await recordAccessChange(store, req, { kind: 'member.removed', teamId, userId })
}

/** Moves a project to another team (the instance admin only; the route says so). */
export async function moveProject(
  req: FastifyRequest,
  store: Store,
  projectId: number,
  teamId: number,
): Promise<void> {
  const project = await store.getProject(projectId)
  if (project === undefined) throw new ApiError('not_found', 'no such project')
  if ((await store.getTeam(teamId)) === undefined)
    throw new ApiError('bad_request', `there is no team ${teamId}`)
  if (project.teamId === teamId) return
  await store.moveProject(projectId, teamId)
  await recordAccessChange(store, req, {
    kind: 'project.moved',
    projectId,
    fromTeamId: project.teamId,
    toTeamId: teamId,
  })
}
