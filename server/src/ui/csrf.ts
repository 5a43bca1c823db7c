import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import { ApiError } from '../errors.ts'
import { html, type SafeHtml } from './html.ts'
import { cookieOptions, newSecret, sameSecret } from './session-auth.ts'

/** The hidden form field every UI form carries. */
export const CSRF_FIELD = '_csrf'

/** Cookie holding the login form's token before any session exists (double-submit). */
export const LOGIN_CSRF_COOKIE = 'ingest_login_csrf'

/** The hidden input with the token (the session's, or the login form's). */
export const csrfInput = (token: string): SafeHtml =>
  html`<input type="hidden" name="${CSRF_FIELD}" value="${token}">`

/** The token a form post carries: the hidden field, or the header for `fetch` callers. */
function presented(req: FastifyRequest): string | undefined {
  const body = req.body
  if (typeof body === 'object' && body !== null && CSRF_FIELD in body) {
    const v = (body as Record<string, unknown>)[CSRF_FIELD]
    if (typeof v === 'string') return v
  }
  const header = req.headers['x-csrf-token']
  return Array.isArray(header) ? header[0] : header
}

/** Refuses (403) a post whose token is missing or is not `expected`. */
export function checkCsrf(req: FastifyRequest, expected: string | undefined): void {
  const token = presented(req)
  if (token === undefined || token === '' || expected === undefined) {
    throw new ApiError(
      'forbidden',
      'This form was sent without its security token. Reload the page and try again.',
    )
  }
  if (!sameSecret(token, expected)) {
    throw new ApiError(
      'forbidden',
      'This form carried a stale or wrong security token. Reload the page and try again.',
    )
  }
}

/**
 * The login form's token: no session exists yet, so it is a random value kept in a short-lived
 * HttpOnly cookie and repeated in the form (double-submit), which a cross-site form cannot read.
 */
export function loginCsrfToken(req: FastifyRequest, reply: FastifyReply, config: Config): string {
  const existing = req.cookies[LOGIN_CSRF_COOKIE]
  if (existing !== undefined && /^[\w-]{43}$/.test(existing)) return existing
  const token = newSecret()
  reply.setCookie(LOGIN_CSRF_COOKIE, token, cookieOptions(req, config, 3600))
  return token
}
