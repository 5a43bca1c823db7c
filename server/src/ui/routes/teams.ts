import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { actionsIn, principalOf, visibleProjects } from '../../accounts/access.ts'
import { CreateTeam } from '../../accounts/team-schemas.ts'
import { createTeam, moveProject, removeMember, setMember, teamsOf } from '../../accounts/teams.ts'
import { notFound } from '../../errors.ts'
import { INSTANCE_ADMIN, onTeam, SIGNED_IN } from '../../http/route-access.ts'
import { parseInput, pathId } from '../../http-kit/validate.ts'
import { TEAM_ROLES, type TeamRole } from '../../store/team-types.ts'
import { pageContext, type UiDeps } from '../context.ts'
import { html } from '../html.ts'
import { layout, postForm, projectUrl, sendPage } from '../layout.ts'

const MemberForm = z.object({
  email: z.string().trim().min(3).max(254),
  role: z.enum(TEAM_ROLES as [TeamRole, ...TeamRole[]]),
})
const MoveForm = z.object({
  project: z
    .string()
    .regex(/^\d{1,15}$/)
    .transform(Number),
})

const teamUrl = (id: number) => `/settings/teams/${id}`

/**
 * Team pages under settings: the list of the caller's teams (and creating one, for the instance
 * admin), and one team's members and projects with the forms the caller may use there.
 */
export async function teamPageRoutes(app: FastifyInstance, deps: UiDeps): Promise<void> {
  const { store } = deps.services

  app.get('/settings/teams', { config: { access: SIGNED_IN } }, async (req, reply) => {
    const ctx = await pageContext(deps, req, 'account')
    const teams = await teamsOf(store, principalOf(req))
    const rows = teams.map(
      ({ team, role }) =>
        html`<tr><td><a href="${teamUrl(team.id)}"><b>${team.name}</b></a></td><td>${role ?? 'instance admin'}</td></tr>`,
    )
    const create = ctx.can.includes('instance:admin')
      ? html`<div class="card"><h2>Create a team</h2>${postForm(ctx, '/settings/teams', html`<div class="row"><input type="text" name="name" required maxlength="100" placeholder="Team name" aria-label="Team name"><button class="primary" type="submit">Create team</button></div>`)}</div>`
      : ''
    const body = html`<h1>Teams</h1>${create}
<div class="table-wrap"><table><thead><tr><th>Team</th><th>Your role</th></tr></thead>
<tbody>${rows.length === 0 ? html`<tr><td colspan="2" class="empty">You belong to no team yet: ask an admin to add you.</td></tr>` : rows}</tbody></table></div>`
    return sendPage(reply, layout(ctx, 'Teams', body))
  })

  app.post('/settings/teams', { config: { access: INSTANCE_ADMIN } }, async (req, reply) => {
    const { name } = parseInput(CreateTeam, req.body, 'team')
    const team = await createTeam(req, store, name)
    return reply.redirect(teamUrl(team.id), 303)
  })

  app.get(
    '/settings/teams/:teamId',
    { config: { access: onTeam('project:read') } },
    async (req, reply) => {
      const teamId = pathId(req.params, 'teamId')
      const team = await store.getTeam(teamId)
      if (team === undefined) throw notFound('team')
      const principal = principalOf(req)
      const ctx = await pageContext(deps, req, 'account')
      const can = await actionsIn(store, principal, teamId)
      const manage = can.includes('team:admin')
      const members = await store.listMembers(teamId)
      const roleSelect = (current?: TeamRole) =>
        html`<select name="role" aria-label="Role">${TEAM_ROLES.map((r) => html`<option value="${r}"${r === current ? html` selected` : ''}>${r}</option>`)}</select>`
      const memberRows = members.map(
        (m) =>
          html`<tr><td>${m.email}</td><td>${
            manage
              ? postForm(
                  ctx,
                  `${teamUrl(teamId)}/members`,
                  html`<input type="hidden" name="email" value="${m.email}">${roleSelect(m.role)}<button type="submit">Set</button>`,
                  { className: 'inline' },
                )
              : m.role
          }</td><td>${
            manage
              ? postForm(
                  ctx,
                  `${teamUrl(teamId)}/members/${m.userId}/remove`,
                  html`<button class="danger" type="submit">Remove</button>`,
                  { className: 'inline', confirm: `Remove ${m.email} from ${team.name}?` },
                )
              : ''
          }</td></tr>`,
      )
      const all = await visibleProjects(store, principal)
      const own = all.filter((p) => p.teamId === teamId)
      const others = all.filter((p) => p.teamId !== teamId)
      const add = manage
        ? html`<div class="card"><h2>Add a member</h2>${postForm(ctx, `${teamUrl(teamId)}/members`, html`<div class="row"><input type="email" name="email" required placeholder="E-mail of an existing user" aria-label="E-mail">${roleSelect('member')}<button class="primary" type="submit">Add</button></div>`)}</div>`
        : ''
      const move =
        can.includes('instance:admin') && others.length > 0
          ? html`<div class="card"><h2>Move a project here</h2>${postForm(ctx, `${teamUrl(teamId)}/projects`, html`<div class="row"><select name="project" aria-label="Project">${others.map((p) => html`<option value="${String(p.id)}">${p.name}</option>`)}</select><button type="submit">Move</button></div>`)}</div>`
          : ''
      const body = html`<h1>Team ${team.name}</h1>${add}
<div class="table-wrap"><table><thead><tr><th>Member</th><th>Role</th><th></th></tr></thead>
<tbody>${memberRows.length === 0 ? html`<tr><td colspan="3" class="empty">No members.</td></tr>` : memberRows}</tbody></table></div>
<div class="card"><h2>Projects</h2><ul>${own.length === 0 ? html`<li class="muted">None yet.</li>` : own.map((p) => html`<li><a href="${projectUrl(p.id, 'issues')}">${p.name}</a></li>`)}</ul></div>${move}`
      return sendPage(reply, layout(ctx, `Team ${team.name}`, body))
    },
  )

  app.post(
    '/settings/teams/:teamId/members',
    { config: { access: onTeam('team:admin') } },
    async (req, reply) => {
      const teamId = pathId(req.params, 'teamId')
      const form = parseInput(MemberForm, req.body, 'member')
      await setMember(req, store, teamId, form.email, form.role)
      return reply.redirect(teamUrl(teamId), 303)
    },
  )

  app.post(
    '/settings/teams/:teamId/members/:userId/remove',
    { config: { access: onTeam('team:admin') } },
    async (req, reply) => {
      const teamId = pathId(req.params, 'teamId')
      await removeMember(req, store, teamId, pathId(req.params, 'userId'))
      return reply.redirect(teamUrl(teamId), 303)
    },
  )

  app.post(
    '/settings/teams/:teamId/projects',
    { config: { access: INSTANCE_ADMIN } },
    async (req, reply) => {
      const teamId = pathId(req.params, 'teamId')
      const { project } = parseInput(MoveForm, req.body, 'move')
      await moveProject(req, store, project, teamId)
      return reply.redirect(teamUrl(teamId), 303)
    },
  )
}
