import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { z } from 'zod'
import {
  type InviteResult,
  inviteUser,
  revokeInvite,
  setUserActive,
} from '../../accounts/lifecycle.ts'
import { actorOf } from '../../audit/record.ts'
import { ApiError } from '../../errors.ts'
import { INSTANCE_ADMIN } from '../../http/route-access.ts'
import { requireAdmin } from '../../http-kit/admin-only.ts'
import { parseInput, pathId } from '../../http-kit/validate.ts'
import { pageContext, type UiDeps, viewerOf } from '../context.ts'
import { isoTime } from '../format.ts'
import { html } from '../html.ts'
import { layout, postForm, sendPage } from '../layout.ts'

const InviteForm = z.object({
  email: z.email('enter an e-mail address').max(320),
  is_admin: z.string().optional(),
})

/** Fixed confirmations shown after a redirect (`?done=`), never text from the request. */
const DONE: Record<string, string> = {
  deactivated: 'User deactivated: their sessions ended and their API tokens stopped.',
  reactivated: 'User reactivated.',
  revoked: 'Invitation revoked: its link no longer works.',
}

/** The admin's user page: users (deactivate, reactivate), invite by e-mail, pending invitations. */
export async function userAdminRoutes(app: FastifyInstance, deps: UiDeps): Promise<void> {
  const { services } = deps
  const { store } = services

  const render = async (
    req: FastifyRequest,
    reply: FastifyReply,
    opts: { flash?: { text: string; error?: boolean }; invited?: InviteResult; status?: number },
  ) => {
    const ctx = await pageContext(deps, req, 'account')
    const [users, invites] = await Promise.all([
      store.listUsers(),
      store.listPendingInvites(Date.now()),
    ])
    const me = viewerOf(req).userId
    const userRows = users.map(
      (
        u,
      ) => html`<tr><td><b>${u.email}</b>${u.id === me ? html` <span class="small muted">(you)</span>` : ''}</td>
<td>${u.isAdmin ? 'admin' : 'user'}</td><td class="small nowrap">${isoTime(u.createdAt)}</td>
<td>${u.deactivatedAt === null ? html`<span class="badge ok">active</span>` : html`<span class="badge">deactivated ${isoTime(u.deactivatedAt)}</span>`}</td>
<td>${
        u.deactivatedAt === null
          ? postForm(
              ctx,
              `/settings/users/${u.id}/deactivate`,
              html`<button class="danger" type="submit">Deactivate</button>`,
              {
                className: 'inline',
                confirm: `Deactivate ${u.email}? Their sessions end and their API tokens stop at once.`,
              },
            )
          : postForm(
              ctx,
              `/settings/users/${u.id}/reactivate`,
              html`<button type="submit">Reactivate</button>`,
              { className: 'inline' },
            )
      }</td></tr>`,
    )
    const inviteRows = invites.map(
      (i) => html`<tr><td>${i.email}</td><td>${i.isAdmin ? 'admin' : 'user'}</td>
<td class="small nowrap">${isoTime(i.createdAt)}</td><td class="small nowrap">${isoTime(i.expiresAt)}</td>
<td>${postForm(ctx, `/settings/invitations/${i.id}/revoke`, html`<button class="danger" type="submit">Revoke</button>`, { className: 'inline', confirm: `Revoke the invitation of ${i.email}?` })}</td></tr>`,
    )
    const r = opts.invited
    const shown =
      r === undefined
        ? ''
        : html`<div class="card"><h2>Invitation for ${r.invite.email}</h2>
<p>${r.emailed ? 'The link was mailed. You can also pass it on yourself:' : r.emailError === undefined ? 'No SMTP server is configured: pass this link on yourself.' : `The mail could not be sent (${r.emailError}): pass this link on yourself.`} It works once, until ${isoTime(r.invite.expiresAt)}, and is shown only now.</p>
<div class="dsn"><input id="invite-link" type="text" readonly value="${r.link}" aria-label="Invitation link"><button type="button" data-copy="invite-link">Copy</button></div></div>`
    const body = html`<h1>Users</h1>${shown}
<div class="card"><h2>Invite a user</h2>${postForm(
      ctx,
      '/settings/invitations',
      html`<div class="row"><input type="email" name="email" required maxlength="320" placeholder="colleague@example.com" aria-label="E-mail address">
<input type="checkbox" id="inv-admin" name="is_admin" value="1"> <label class="inline-label" for="inv-admin">admin</label>
<button class="primary" type="submit">Invite</button></div><p class="small muted">The invitee gets a one-time link (valid 7 days) to choose a password.</p>`,
    )}</div>
<div class="table-wrap"><table><thead><tr><th>User</th><th>Role</th><th>Created</th><th>State</th><th></th></tr></thead>
<tbody>${userRows}</tbody></table></div>
<h2>Pending invitations</h2>
<div class="table-wrap"><table><thead><tr><th>E-mail</th><th>Role</th><th>Sent</th><th>Expires</th><th></th></tr></thead>
<tbody>${inviteRows.length === 0 ? html`<tr><td colspan="5" class="empty">No pending invitations.</td></tr>` : inviteRows}</tbody></table></div>`
    return sendPage(reply, layout(ctx, 'Users', body, opts.flash), opts.status ?? 200)
  }

  /** Runs an admin change; a 4xx re-renders the page with its message. */
  const change = async (
    req: FastifyRequest,
    reply: FastifyReply,
    done: keyof typeof DONE,
    fn: () => Promise<unknown>,
  ) => {
    try {
      await fn()
    } catch (err) {
      if (err instanceof ApiError && err.status < 500 && err.status !== 403)
        return render(req, reply, { flash: { text: err.message, error: true }, status: err.status })
      throw err
    }
    return reply.redirect(`/settings/users?done=${done}`, 303)
  }

  app.get('/settings/users', { config: { access: INSTANCE_ADMIN } }, async (req, reply) => {
    requireAdmin(viewerOf(req))
    const done = DONE[String((req.query as Record<string, unknown>)['done'])]
    return render(req, reply, done === undefined ? {} : { flash: { text: done } })
  })

  app.post('/settings/invitations', { config: { access: INSTANCE_ADMIN } }, async (req, reply) => {
    requireAdmin(viewerOf(req))
    try {
      const form = parseInput(InviteForm, req.body, 'invitation')
      const invited = await inviteUser(services, actorOf(viewerOf(req)), {
        email: form.email,
        isAdmin: form.is_admin !== undefined,
      })
      return render(req, reply, { invited, status: 201 })
    } catch (err) {
      if (err instanceof ApiError && (err.status === 400 || err.status === 409))
        return render(req, reply, { flash: { text: err.message, error: true }, status: err.status })
      throw err
    }
  })

  app.post(
    '/settings/invitations/:inviteId/revoke',
    { config: { access: INSTANCE_ADMIN } },
    async (req, reply) => {
      requireAdmin(viewerOf(req))
      return change(req, reply, 'revoked', () =>
        revokeInvite(services, actorOf(viewerOf(req)), pathId(req.params, 'inviteId')),
      )
    },
  )

  for (const [verb, active] of [
    ['deactivate', false],
    ['reactivate', true],
  ] as const) {
    app.post(
      `/settings/users/:userId/${verb}`,
      { config: { access: INSTANCE_ADMIN } },
      async (req, reply) => {
        requireAdmin(viewerOf(req))
        return change(req, reply, active ? 'reactivated' : 'deactivated', () =>
          setUserActive(services, actorOf(viewerOf(req)), pathId(req.params, 'userId'), active),
        )
      },
    )
  }
}
