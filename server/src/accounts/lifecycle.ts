/**
 * The user lifecycle, shared by the API and the web UI: invitations (a one-time link the invitee
 * sets a password with), deactivation and reactivation, and password resets by e-mail. Links
 * carry a 256-bit random secret of which only the SHA-256 is stored, like API tokens.
 */
import { randomBytes } from 'node:crypto'
import { type AuditActor, actorOf, recordAudit } from '../audit/record.ts'
import { ApiError } from '../errors.ts'
import { hashToken } from '../http-kit/tokens.ts'
import type { Services } from '../services.ts'
import type { User } from '../store/types.ts'
import type { AccountLink, AccountLinkKind } from '../store/user-lifecycle-types.ts'
import { accountMailer } from './mailer.ts'
import { hashPassword, passwordProblem } from './passwords.ts'

/** An invitation link is good for 7 days (Sentry's invitations also last a week). */
export const INVITE_TTL_MS = 7 * 24 * 3_600_000
/** A reset link is good for 1 hour (OWASP Forgot Password Cheat Sheet: short-lived tokens). */
export const RESET_TTL_MS = 3_600_000

/** The page paths a link's secret is appended to. */
export const LINK_PATHS: Record<AccountLinkKind, string> = {
  invite: '/accept-invite/',
  reset: '/reset-password/',
}

/** A link's full URL under the public base URL. */
export const linkUrl = (baseUrl: string, kind: AccountLinkKind, secret: string): string =>
  `${baseUrl.replace(/\/+$/, '')}${LINK_PATHS[kind]}${secret}`

/** Whether a link can still be used at `now`, or why not. */
export type LinkState = 'usable' | 'used' | 'revoked' | 'expired'

/** The state of a link at `now`. */
export function linkState(link: AccountLink, now: number): LinkState {
  if (link.usedAt !== null) return 'used'
  if (link.revokedAt !== null) return 'revoked'
  if (link.expiresAt <= now) return 'expired'
  return 'usable'
}

const GONE_TEXT: Record<Exclude<LinkState, 'usable'>, string> = {
  used: 'This link was already used. Each link works once.',
  revoked: 'This link was revoked by an admin.',
  expired: 'This link has expired. Ask for a new one.',
}

/**
 * The usable link of this kind with this secret: 404 for an unknown secret (or one of another
 * kind), 410 for a used, revoked or expired one, with a sentence saying which.
 */
export async function usableLink(
  services: Pick<Services, 'store'>,
  kind: AccountLinkKind,
  secret: string,
  now = Date.now(),
): Promise<AccountLink> {
  const link =
    secret.length > 0 && secret.length <= 100
      ? await services.store.findAccountLink(hashToken(secret))
      : undefined
  if (link === undefined || link.kind !== kind)
    throw new ApiError('not_found', 'This link is not valid. Check that it was copied whole.')
  const state = linkState(link, now)
  if (state !== 'usable') throw new ApiError('gone', GONE_TEXT[state])
  return link
}

/** A user as the API shows it (never the password hash). */
export const userJson = (u: User) => ({
  id: u.id,
  email: u.email,
  is_admin: u.isAdmin,
  created_at: new Date(u.createdAt).toISOString(),
  deactivated_at: u.deactivatedAt === null ? null : new Date(u.deactivatedAt).toISOString(),
})

/** An invitation as the API shows it (the link only once, when created). */
export const inviteJson = (l: AccountLink) => ({
  id: l.id,
  email: l.email,
  is_admin: l.isAdmin,
  created_at: new Date(l.createdAt).toISOString(),
  expires_at: new Date(l.expiresAt).toISOString(),
})

/** What inviting did: the link to show the admin, and whether the mail went out. */
export interface InviteResult {
  invite: AccountLink
  link: string
  emailed: boolean
  emailError?: string
}

/**
 * Invites `email`: stores a one-time link (7 days) and mails it when SMTP is configured. The link
 * is returned either way, for the admin to pass on. 409 when a user with the address exists.
 */
export async function inviteUser(
  services: Services,
  actor: AuditActor,
  input: { email: string; isAdmin: boolean },
): Promise<InviteResult> {
  const { store } = services
  if ((await store.findUserByEmail(input.email)) !== undefined)
    throw new ApiError('conflict', 'A user with this e-mail address exists already.')
  const secret = randomBytes(32).toString('base64url')
  const now = Date.now()
  const invite = await store.createAccountLink({
    kind: 'invite',
    tokenHash: hashToken(secret),
    email: input.email,
    userId: null,
    isAdmin: input.isAdmin,
    createdBy: actor.userId,
    createdAt: now,
    expiresAt: now + INVITE_TTL_MS,
  })
  const link = linkUrl(services.baseUrl(), 'invite', secret)
  await recordAudit(store, actor, 'user.invite', {
    target: `invite:${invite.id}`,
    details: { email: input.email, is_admin: input.isAdmin },
  })
  const mailer = accountMailer(services)
  if (!mailer.configured) return { invite, link, emailed: false }
  try {
    await mailer.send(
      input.email,
      'You are invited to the error-ingest server',
      `You were invited to an error-ingest server.\n\nOpen this link to choose your password (it works once, for 7 days):\n\n${link}\n`,
    )
    return { invite, link, emailed: true }
  } catch (err) {
    return { invite, link, emailed: false, emailError: String(err) }
  }
}

/** Revokes a pending invitation; 404 when there is no such pending one. */
export async function revokeInvite(
  services: Pick<Services, 'store'>,
  actor: AuditActor,
  id: number,
): Promise<void> {
  if (!(await services.store.revokeAccountLink('invite', id, Date.now())))
    throw new ApiError('not_found', 'There is no such pending invitation.')
  await recordAudit(services.store, actor, 'invite.revoke', { target: `invite:${id}` })
}

/** Throws 400 naming the problem when a chosen password breaks the rules. */
function checkPassword(password: string): void {
  const problem = passwordProblem(password)
  if (problem !== undefined) throw new ApiError('bad_request', problem)
}

/** Accepts an invitation: creates the user with the chosen password. 404/410/400/409. */
export async function acceptInvite(
  services: Pick<Services, 'store'>,
  secret: string,
  password: string,
): Promise<User> {
  const { store } = services
  const link = await usableLink(services, 'invite', secret)
  checkPassword(password)
  const hash = await hashPassword(password)
  if ((await store.findUserByEmail(link.email)) !== undefined)
    throw new ApiError('conflict', 'A user with this e-mail address exists already: sign in.')
  if (!(await store.useAccountLink(link.id, Date.now()))) throw new ApiError('gone', GONE_TEXT.used)
  let user: User
  try {
    user = await store.createUser(link.email, hash, link.isAdmin)
  } catch (err) {
    if (/unique/i.test(String(err)))
      throw new ApiError('conflict', 'A user with this e-mail address exists already: sign in.')
    throw err
  }
  await recordAudit(store, actorOf({ userId: user.id }), 'invite.accept', {
    target: `user:${user.id}`,
    details: { invite: link.id, email: user.email },
  })
  return user
}

/**
 * Starts a password reset for `email`: when the address belongs to an active user and SMTP is
 * configured, a one-time link (1 hour) is mailed in the background. Says nothing about which
 * happened, so the answer cannot tell whether the address has an account.
 */
export async function requestReset(services: Services, email: string): Promise<void> {
  const { store } = services
  const mailer = accountMailer(services)
  const user = email === '' ? undefined : await store.findUserByEmail(email)
  if (user === undefined || user.deactivatedAt !== null || !mailer.configured) return
  const secret = randomBytes(32).toString('base64url')
  const now = Date.now()
  await store.createAccountLink({
    kind: 'reset',
    tokenHash: hashToken(secret),
    email: user.email,
    userId: user.id,
    isAdmin: false,
    createdBy: null,
    createdAt: now,
    expiresAt: now + RESET_TTL_MS,
  })
  mailer.background(
    user.email,
    'Reset your error-ingest password',
    `Someone asked to reset the password of ${user.email} on the error-ingest server.\n\nOpen this link to choose a new password (it works once, for 1 hour):\n\n${linkUrl(services.baseUrl(), 'reset', secret)}\n\nIf it was not you, ignore this mail: your password stays as it is.\n`,
  )
}

/**
 * Sets a new password through a reset link and ends every session of the user. 404/410/400;
 * a link of a user deactivated since it was sent is refused (410).
 */
export async function completeReset(
  services: Pick<Services, 'store'>,
  secret: string,
  password: string,
): Promise<User> {
  const { store } = services
  const link = await usableLink(services, 'reset', secret)
  checkPassword(password)
  const user = link.userId === null ? undefined : await store.getUser(link.userId)
  if (user === undefined || user.deactivatedAt !== null)
    throw new ApiError('gone', 'This account is deactivated.')
  const hash = await hashPassword(password)
  if (!(await store.useAccountLink(link.id, Date.now()))) throw new ApiError('gone', GONE_TEXT.used)
  await setPassword(store, user.id, hash)
  await recordAudit(store, actorOf({ userId: user.id }), 'password.reset', {
    target: `user:${user.id}`,
    details: { via: 'email-link' },
  })
  return user
}

/** Stores a new password hash and ends every UI session of the user. */
export async function setPassword(
  store: Pick<Services['store'], 'setPasswordHash' | 'deleteUserSessions'>,
  userId: number,
  passwordHash: string,
): Promise<void> {
  await store.setPasswordHash(userId, passwordHash)
  await store.deleteUserSessions(userId)
}

/**
 * Deactivates or reactivates a user (idempotent: no change, no audit row). Deactivating ends the
 * user's sessions; its API tokens are refused while it lasts. 404 for an unknown user, 409 for
 * the last active admin.
 */
export async function setUserActive(
  services: Pick<Services, 'store'>,
  actor: AuditActor,
  userId: number,
  active: boolean,
): Promise<User> {
  const { store } = services
  const user = await store.getUser(userId)
  if (user === undefined) throw new ApiError('not_found', 'There is no such user.')
  if ((user.deactivatedAt === null) === active) return user
  const changed = await store.setUserDeactivated(userId, active ? null : Date.now())
  if (!changed && !active)
    throw new ApiError('conflict', 'The last active admin cannot be deactivated.')
  if (!active) await store.deleteUserSessions(userId)
  if (changed)
    await recordAudit(store, actor, active ? 'user.reactivate' : 'user.deactivate', {
      target: `user:${userId}`,
      details: { email: user.email },
    })
  return (await store.getUser(userId)) ?? user
}
