import type { FastifyInstance } from 'fastify'
import { AUDIT_ACTIONS } from '../../audit/record.ts'
import { AuditQuery } from '../../audit/routes.ts'
import { INSTANCE_ADMIN } from '../../http/route-access.ts'
import { requireAdmin } from '../../http-kit/admin-only.ts'
import { parseInput } from '../../http-kit/validate.ts'
import { pageContext, type UiDeps, viewerOf } from '../context.ts'
import { isoTime, relTime, truncate } from '../format.ts'
import { html } from '../html.ts'
import { layout, sendPage } from '../layout.ts'

const PAGE_SIZE = 50

/** The audit log page (admins only): newest first, filter by action, paged by cursor. */
export async function auditLogRoutes(app: FastifyInstance, deps: UiDeps): Promise<void> {
  const { store } = deps.services
  app.get('/settings/audit-log', { config: { access: INSTANCE_ADMIN } }, async (req, reply) => {
    requireAdmin(viewerOf(req))
    const q = parseInput(AuditQuery, req.query ?? {}, 'query')
    const action = q.action === '' ? undefined : q.action
    const [ctx, page, users] = await Promise.all([
      pageContext(deps, req, 'account'),
      store.listAudit({ action }, { limit: PAGE_SIZE, cursor: q.cursor }),
      store.listUsers(),
    ])
    const emails = new Map(users.map((u) => [u.id, u.email]))
    const url = (cursor?: string) => {
      const p = new URLSearchParams()
      if (action !== undefined) p.set('action', action)
      if (cursor !== undefined) p.set('cursor', cursor)
      const s = p.toString()
      return s === '' ? '/settings/audit-log' : `/settings/audit-log?${s}`
    }
    const who = (kind: string, userId: number | null) =>
      kind === 'user'
        ? (emails.get(userId ?? -1) ?? `user ${userId}`)
        : kind === 'admin-token'
          ? 'admin token'
          : 'server (operator command)'
    // Every value below may come from a client (names, labels, e-mails): the html template
    // escapes it, so it is shown as text.
    const rows = page.entries.map(
      (e) => html`<tr><td class="small nowrap" title="${isoTime(e.at)}">${relTime(e.at)}</td>
<td>${who(e.actorKind, e.actorUserId)}</td><td><code>${e.action}</code></td>
<td>${e.projectId === null ? '' : html`<a href="/projects/${e.projectId}/settings">${e.projectId}</a>`}</td>
<td class="mono small">${e.target}</td><td class="small break mono">${truncate(e.details, 300)}</td></tr>`,
    )
    const known = Object.keys(AUDIT_ACTIONS)
    const filter = html`<form method="get" action="/settings/audit-log" class="row">
<select name="action" aria-label="Action"><option value="">every action</option>${known.map(
      (a) => html`<option value="${a}"${a === action ? html` selected` : ''}>${a}</option>`,
    )}${action !== undefined && !known.includes(action) ? html`<option value="${action}" selected>${action}</option>` : ''}</select>
<button type="submit">Filter</button></form>`
    const pager = html`<div class="pager">${q.cursor === undefined ? '' : html`<a class="button" href="${url()}">« Newest</a>`}${page.next === undefined ? '' : html`<a class="button" href="${url(page.next)}" rel="next">Older »</a>`}</div>`
    const body = html`<div class="spread"><h1>Audit log</h1>${filter}</div>
<div class="table-wrap"><table><thead><tr><th>When</th><th>Who</th><th>Action</th><th>Project</th><th>Target</th><th>Details</th></tr></thead>
<tbody>${rows.length === 0 ? html`<tr><td colspan="6" class="empty">Nothing recorded${action === undefined ? '' : ' for this action'}.</td></tr>` : rows}</tbody></table></div>${pager}`
    return sendPage(reply, layout(ctx, 'Audit log', body))
  })
}
