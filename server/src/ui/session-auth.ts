import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { TLSSocket } from 'node:tls'
import { fastifyCookie } from '@fastify/cookie'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import { ApiError } from '../errors.ts'
import type { PrincipalSource } from '../http-kit/principal.ts'
import { hashToken } from '../http-kit/tokens.ts'
import { TOKEN_SCOPES } from '../store/team-types.ts'
import type { UiSession, UiSessionStore, User } from '../store/types.ts'

/** The session cookie's name. */
export const SESSION_COOKIE = 'ingest_session'

/** A session ends after this long without a request (sliding expiry). */
export const SESSION_IDLE_MS = 14 * 24 * 3_600_000

/** The expiry is pushed forward at most this often, so reads do not write on every request. */
const TOUCH_EVERY_MS = 10 * 60_000

/** A session as the UI uses it: the row and its user. */
export type ActiveSession = UiSession & { user: User }

/** A new random secret for cookies and CSRF tokens (256 bits, URL-safe). */
export const newSecret = (): string => randomBytes(32).toString('base64url')

/** Constant-time string comparison for secrets. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/**
 * Whether the browser reached us over TLS: directly, or through a proxy whose
 * `X-Forwarded-Proto: https` is trusted only when `TRUST_PROXY` is set.
 */
export function isSecureRequest(req: FastifyRequest, config: Config): boolean {
  if ((req.raw.socket as Partial<TLSSocket>).encrypted === true) return true
  if (!config.trustProxy) return false
  const proto = req.headers['x-forwarded-proto']
  const first = (Array.isArray(proto) ? proto[0] : proto)?.split(',')[0]?.trim().toLowerCase()
  return first === 'https'
}

/** Cookie attributes for UI cookies: HttpOnly, SameSite=Lax, Secure behind TLS. */
export function cookieOptions(req: FastifyRequest, config: Config, maxAgeSeconds?: number) {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: isSecureRequest(req, config),
    ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }),
  }
}

/** The session cookie's value of a request, if any (works without the cookie plugin). */
function sessionCookie(req: FastifyRequest): string | undefined {
  const fromPlugin = req.cookies?.[SESSION_COOKIE]
  if (fromPlugin !== undefined) return fromPlugin
  const header = req.headers.cookie
  return header === undefined ? undefined : fastifyCookie.parse(header)[SESSION_COOKIE]
}

/** Signs a user in: a new session row and a fresh cookie (never reusing a presented one). */
export async function startSession(
  store: UiSessionStore,
  req: FastifyRequest,
  reply: FastifyReply,
  config: Config,
  user: User,
  now = Date.now(),
): Promise<UiSession> {
  const secret = newSecret()
  const session = await store.createSession(
    user.id,
    hashToken(secret),
    newSecret(),
    now,
    now + SESSION_IDLE_MS,
  )
  reply.setCookie(SESSION_COOKIE, secret, cookieOptions(req, config, SESSION_IDLE_MS / 1000))
  return session
}

/** The live session of a request (sliding its expiry forward now and then), or undefined. */
export async function readSession(
  store: UiSessionStore,
  req: FastifyRequest,
  now = Date.now(),
): Promise<ActiveSession | undefined> {
  const secret = sessionCookie(req)
  if (secret === undefined || secret === '' || secret.length > 200) return undefined
  const session = await store.findSession(hashToken(secret), now)
  if (session === undefined) return undefined
  // Deactivation deletes the user's sessions; this also refuses one created in a race with it.
  if (session.user.deactivatedAt !== null) return undefined
  if (now - session.lastSeenAt > TOUCH_EVERY_MS) {
    await store.touchSession(session.id, now, now + SESSION_IDLE_MS)
  }
  return session
}

/** Signs out: deletes the session row and clears the cookie. */
export async function endSession(
  store: UiSessionStore,
  req: FastifyRequest,
  reply: FastifyReply,
  config: Config,
): Promise<void> {
  const secret = sessionCookie(req)
  if (secret !== undefined && secret !== '') await store.deleteSession(hashToken(secret))
  reply.clearCookie(SESSION_COOKIE, cookieOptions(req, config))
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * Lets the JSON API accept the UI's session cookie (passed to `apiRoutes` by app.ts). A state-
 * changing call made with the cookie must also carry the session's CSRF token in
 * `X-CSRF-Token`, so another site cannot make a signed-in browser change anything.
 */
export function sessionPrincipalSource(store: UiSessionStore): PrincipalSource {
  return async (req) => {
    const session = await readSession(store, req)
    if (session === undefined) return undefined
    if (!SAFE_METHODS.has(req.method)) {
      const header = req.headers['x-csrf-token']
      const token = Array.isArray(header) ? header[0] : header
      if (token === undefined || !sameSecret(token, session.csrfToken)) {
        throw new ApiError('forbidden', 'CSRF token missing or wrong (send X-CSRF-Token)')
      }
    }
    return {
      userId: session.userId,
      isAdmin: session.user.isAdmin,
      via: 'session',
      scopes: TOKEN_SCOPES,
    }
  }
}
