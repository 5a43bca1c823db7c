import { z } from 'zod'
import { INSTANCE_ADMIN, onTeam, SIGNED_IN } from '../http/route-access.ts'
import { iso, keyJson, projectJson } from '../http-kit/format.ts'
import type { ApiScope } from '../http-kit/openapi.ts'
import {
  bodyErrorResponses,
  errorResponses,
  ProjectJson,
  ProjectParams,
} from '../http-kit/schemas.ts'
import type { TeamMember } from '../store/team-types.ts'
import type { Store } from '../store/types.ts'
import { principalOf } from './access.ts'
import {
  CreateTeam,
  MemberJson,
  MemberParams,
  MoveProject,
  SetMember,
  TeamJson,
  TeamParams,
} from './team-schemas.ts'
import { createTeam, moveProject, removeMember, setMember, teamsOf } from './teams.ts'

const memberJson = (m: TeamMember) => ({
  user_id: m.userId,
  email: m.email,
  role: m.role,
  added_at: iso(m.createdAt),
})

/**
 * Teams and members: the instance admin creates teams and moves projects between them; a
 * team's admins add and remove members and set their roles; every member sees the team.
 */
export async function teamRoutes(
  app: ApiScope,
  deps: { store: Store; baseUrl: () => string },
): Promise<void> {
  const { store } = deps

  app.get(
    '/api/0/teams/',
    {
      config: { access: SIGNED_IN },
      schema: {
        summary: 'Teams the caller belongs to (every team for the instance admin), with its role',
        response: { 200: z.array(TeamJson), ...errorResponses },
      },
    },
    async (req) =>
      (await teamsOf(store, principalOf(req))).map(({ team, role }) => ({
        id: team.id,
        slug: team.slug,
        name: team.name,
        created_at: iso(team.createdAt),
        role,
      })),
  )

  app.post(
    '/api/0/teams/',
    {
      config: { access: INSTANCE_ADMIN },
      schema: {
        summary: 'Create a team (instance admin)',
        body: CreateTeam,
        response: { 201: TeamJson, ...bodyErrorResponses },
      },
    },
    async (req, reply) => {
      const team = await createTeam(req, store, req.body.name)
      return reply.code(201).send({
        id: team.id,
        slug: team.slug,
        name: team.name,
        created_at: iso(team.createdAt),
        role: null,
      })
    },
  )

  app.get(
    '/api/0/teams/:teamId/members/',
    {
      config: { access: onTeam('project:read') },
      schema: {
        summary: 'Members of a team and their roles (any member)',
        params: TeamParams,
        response: { 200: z.array(MemberJson), ...errorResponses },
      },
    },
    async (req) => (await store.listMembers(req.params.teamId)).map(memberJson),
  )

  app.put(
    '/api/0/teams/:teamId/members/',
    {
      config: { access: onTeam('team:admin') },
      schema: {
        summary:
          'Add an existing user (by e-mail) to the team or change their role (team admin); 409 when it would leave the team without an admin',
        params: TeamParams,
        body: SetMember,
        response: { 200: MemberJson, ...bodyErrorResponses, 409: bodyErrorResponses[400] },
      },
    },
    async (req) =>
      memberJson(await setMember(req, store, req.params.teamId, req.body.email, req.body.role)),
  )

  app.delete(
    '/api/0/teams/:teamId/members/:userId/',
    {
      config: { access: onTeam('team:admin') },
      schema: {
        summary: 'Remove a member (team admin); 409 for the last admin',
        params: MemberParams,
        response: {
          204: z.null().describe('Removed'),
          ...errorResponses,
          409: errorResponses[400],
        },
      },
    },
    async (req, reply) => {
      await removeMember(req, store, req.params.teamId, req.params.userId)
      return reply.code(204).send(null)
    },
  )

  app.put(
    '/api/0/projects/:projectId/team/',
    {
      config: { access: INSTANCE_ADMIN },
      schema: {
        summary: 'Move a project to another team (instance admin)',
        params: ProjectParams,
        body: MoveProject,
        response: { 200: ProjectJson, ...bodyErrorResponses },
      },
    },
    async (req) => {
      await moveProject(req, store, req.params.projectId, req.body.team_id)
      const p = await store.getProject(req.params.projectId)
      if (p === undefined) throw new Error('project vanished after move')
      const keys = await store.listKeys(p.id)
      const k = keys.find((x) => x.component === null && x.revokedAt === null) ?? keys[0]
      return projectJson(p, k === undefined ? '' : keyJson(k, deps.baseUrl()).dsn)
    },
  )
}
