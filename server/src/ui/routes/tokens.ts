import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { actorOf, recordAudit } from '../../audit/record.ts'
import { ApiError, notFound } from '../../errors.ts'
import { SIGNED_IN } from '../../http/route-access.ts'
import { hashToken, newToken } from '../../http-kit/tokens.ts'
import { parseInput, pathId } from '../../http-kit/validate.ts'
import { TOKEN_SCOPES, type TokenScope } from '../../store/team-types.ts'
import { pageContext, type UiDeps, viewerOf } from '../context.ts'
import { isoTime } from '../format.ts'
import { html } from '../html.ts'
import { layout, postForm, sendPage } from '../layout.ts'

const CreateToken = z.object({
  name: z.string().trim().min(1).max(100),
  // Absent (older forms, scripts): every scope, as tokens had before scopes existed.
  scope: z.enum(TOKEN_SCOPES as [TokenScope, ...TokenScope[]]).default('admin'),
})

/** The scopes a token of the chosen level carries (each level includes the ones below it). */
const scopesUpTo = (top: TokenScope): TokenScope[] =>
  TOKEN_SCOPES.slice(0, TOKEN_SCOPES.indexOf(top) + 1)

const SCOPE_LABELS: Record<TokenScope, string> = {
  read: 'read: see projects',
  write: 'write: read and triage issues',
  admin: 'admin: everything your roles allow',
}

/** The API token page: list, create (secret shown once), revoke. */
export async function tokenRoutes(app: FastifyInstance, deps: UiDeps): Promise<void> {
  const { store } = deps.services
  const userOf = (req: Parameters<typeof viewerOf>[0]) => {
    const id = viewerOf(req).userId
    if (id === null)
      throw new ApiError(
        'forbidden',
        'The admin token has no account: sign in to manage API tokens.',
      )
    return id
  }

  const page = async (
    req: Parameters<typeof viewerOf>[0],
    created?: { name: string; secret: string },
  ) => {
    const ctx = await pageContext(deps, req, 'account')
    const tokens = await store.listTokens(userOf(req))
    const rows = tokens.map(
      (
        t,
      ) => html`<tr><td><b>${t.name}</b></td><td class="small">${t.scopes.join(', ')}</td><td class="small">${isoTime(t.createdAt)}</td>
<td>${t.revokedAt === null ? html`<span class="badge ok">active</span>` : html`<span class="badge">revoked ${isoTime(t.revokedAt)}</span>`}</td>
<td>${t.revokedAt === null ? postForm(ctx, `/account/tokens/${t.id}/revoke`, html`<button class="danger" type="submit">Revoke</button>`, { className: 'inline', confirm: `Revoke the token “${t.name}”? Scripts using it stop working.` }) : ''}</td></tr>`,
    )
    const shown =
      created === undefined
        ? ''
        : html`<div class="card"><h2>New token “${created.name}”</h2><p>Copy it now: it is shown only once.</p>
<div class="dsn"><input id="new-token" type="text" readonly value="${created.secret}" aria-label="New API token"><button type="button" data-copy="new-token">Copy</button></div>
<p class="small muted">Use it as <code>Authorization: Bearer &lt;token&gt;</code> on <code>/api/0/</code>.</p></div>`
    const body = html`<h1>API tokens</h1>${shown}
<div class="card"><h2>Create a token</h2>${postForm(ctx, '/account/tokens', html`<div class="row"><input type="text" name="name" required maxlength="100" placeholder="What is it for? e.g. deploy script" aria-label="Token name"><select name="scope" aria-label="Scope">${TOKEN_SCOPES.map((s) => html`<option value="${s}"${s === 'admin' ? html` selected` : ''}>${SCOPE_LABELS[s]}</option>`)}</select><button class="primary" type="submit">Create token</button></div>`)}</div>
<div class="table-wrap"><table><thead><tr><th>Name</th><th>Scopes</th><th>Created</th><th>State</th><th></th></tr></thead>
<tbody>${rows.length === 0 ? html`<tr><td colspan="5" class="empty">No tokens yet.</td></tr>` : rows}</tbody></table></div>`
    return layout(ctx, 'API tokens', body)
  }

  app.get('/account/tokens', { config: { access: SIGNED_IN } }, async (req, reply) =>
    sendPage(reply, await page(req)),
  )

  app.post('/account/tokens', { config: { access: SIGNED_IN } }, async (req, reply) => {
    const userId = userOf(req)
    const { name, scope } = parseInput(CreateToken, req.body, 'token')
    const secret = newToken()
    const scopes = scopesUpTo(scope)
    const token = await store.createToken(userId, name, hashToken(secret), scopes)
    await recordAudit(store, actorOf(viewerOf(req)), 'token.create', {
      target: `token:${token.id}`,
      details: { name, scopes },
    })
    return sendPage(reply, await page(req, { name, secret }), 201)
  })

  app.post(
    '/account/tokens/:tokenId/revoke',
    { config: { access: SIGNED_IN } },
    async (req, reply) => {
      const userId = userOf(req)
      const tokenId = pathId(req.params, 'tokenId')
      const ok = await store.revokeToken(userId, tokenId)
      if (!ok) throw notFound('token')
      await recordAudit(store, actorOf(viewerOf(req)), 'token.revoke', {
        target: `token:${tokenId}`,
      })
      return reply.redirect('/account/tokens', 303)
    },
  )
}
