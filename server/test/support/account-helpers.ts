import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import type { SmtpConfig } from '../../src/config.ts'
import { ADMIN } from './helpers.ts'
import { cookieValue, csrfOf, formBody } from './ui-helpers.ts'

/** The SMTP config of a loopback receiver. */
export const smtpOf = (r: { host: string; port: number }): SmtpConfig => ({
  host: r.host,
  port: r.port,
  secure: false,
  from: 'ingest@example.com',
  user: undefined,
  password: undefined,
})

/** The path of the one-time link in a mail or an API answer (`/accept-invite/…`). */
export function linkPath(text: string): string {
  const m = /\/(?:accept-invite|reset-password)\/[A-Za-z0-9_-]+/.exec(text)
  if (m === null) throw new Error(`no account link in: ${text.slice(0, 300)}`)
  return m[0]
}

/**
 * Opens a link's page and posts its password form as a browser does (the page's CSRF field and
 * cookie); returns the page and the form's answer.
 */
export async function submitLinkForm(
  app: FastifyInstance,
  path: string,
  password: string,
  confirm = password,
): Promise<{ page: LightMyRequestResponse; res: LightMyRequestResponse }> {
  const page = await app.inject({ method: 'GET', url: path })
  if (page.statusCode !== 200) return { page, res: page }
  const csrf = cookieValue(page, 'ingest_login_csrf') ?? ''
  const res = await app.inject({
    method: 'POST',
    url: path,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: `ingest_login_csrf=${csrf}`,
    },
    payload: formBody({ password, confirm, _csrf: csrfOf(page.body) }),
  })
  return { page, res }
}

/** One audit row as the API shows it. */
export interface AuditRowJson {
  id: number
  actor: { kind: string; user_id: number | null }
  action: string
  project_id: number | null
  target: string
  details: Record<string, unknown>
}

/** The audit rows of an action (all when omitted), newest first, read through the API. */
export async function auditRows(app: FastifyInstance, action?: string): Promise<AuditRowJson[]> {
  const q = action === undefined ? '' : `?action=${encodeURIComponent(action)}`
  const res = await app.inject({ method: 'GET', url: `/api/0/audit-log/${q}`, headers: ADMIN })
  if (res.statusCode !== 200) throw new Error(`audit log: ${res.statusCode} ${res.body}`)
  return res.json<AuditRowJson[]>()
}
