import type { ApiToken, TokenScope, User } from './model.ts'

/** Accounts: users and API tokens. */
export interface AccountStore {
  countUsers(): Promise<number>
  createUser(email: string, passwordHash: string, isAdmin: boolean): Promise<User>
  findUserByEmail(email: string): Promise<User | undefined>
  getUser(id: number): Promise<User | undefined>
  /** `scopes` default: all of them (the token can do what its user can). */
  createToken(
    userId: number,
    name: string,
    tokenHash: string,
    scopes?: readonly TokenScope[],
  ): Promise<ApiToken>
  findToken(tokenHash: string): Promise<(ApiToken & { user: User }) | undefined>
  listTokens(userId: number): Promise<ApiToken[]>
  revokeToken(userId: number, tokenId: number): Promise<boolean>
}

/** A signed-in browser session of the web UI (the cookie secret itself is never stored). */
export interface UiSession {
  id: number
  userId: number
  /** Per-session CSRF token every UI form carries in a hidden field. */
  csrfToken: string
  createdAt: number
  lastSeenAt: number
  expiresAt: number
}

/** Web UI sessions, looked up by the SHA-256 of the cookie secret. */
export interface UiSessionStore {
  createSession(
    userId: number,
    tokenHash: string,
    csrfToken: string,
    now: number,
    expiresAt: number,
  ): Promise<UiSession>
  /** The live session (not expired at `now`) and its user. */
  findSession(tokenHash: string, now: number): Promise<(UiSession & { user: User }) | undefined>
  touchSession(id: number, now: number, expiresAt: number): Promise<void>
  deleteSession(tokenHash: string): Promise<void>
  deleteExpiredSessions(now: number): Promise<number>
}

/** Failed sign-ins under one throttle key: how many in a row and the last one's time, ms. */
export interface LoginFailures {
  count: number
  last: number
}

/** The sign-in throttle's counters, shared by every node (ui/login-throttle.ts decides). */
export interface LoginFailureStore {
  /** The failures of these keys whose last one is at or after `since`. */
  loginFailures(keys: readonly string[], since: number): Promise<Map<string, LoginFailures>>
  /** Adds one failure at `now` to each key; a key idle since before `since` starts again at 1. */
  recordLoginFailure(keys: readonly string[], now: number, since: number): Promise<void>
  /** Forgets the keys (a successful sign-in). */
  clearLoginFailures(keys: readonly string[]): Promise<void>
}
