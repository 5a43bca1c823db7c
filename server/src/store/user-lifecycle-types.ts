/**
 * Storage of the user lifecycle (invitations, deactivation, password resets) and of the audit
 * log. Kept apart from `types.ts` so accounts can grow without every store interface in one file.
 */
import type { Page, User } from './model.ts'

/** What a one-time account link is for. */
export type AccountLinkKind = 'invite' | 'reset'

/** A one-time link (only the SHA-256 of its secret is stored). */
export interface AccountLink {
  id: number
  kind: AccountLinkKind
  email: string
  /** reset: the user whose password it sets; invite: null (the user does not exist yet). */
  userId: number | null
  /** invite: whether the new user becomes an instance admin. */
  isAdmin: boolean
  createdBy: number | null
  createdAt: number
  expiresAt: number
  usedAt: number | null
  revokedAt: number | null
}

/** A link to write down. */
export type NewAccountLink = Omit<AccountLink, 'id' | 'usedAt' | 'revokedAt'> & {
  tokenHash: string
}

/** Users as the admin manages them, and the one-time links of invitations and resets. */
export interface UserLifecycleStore {
  /** Every user, oldest first (an instance has tens of users, not thousands). */
  listUsers(): Promise<User[]>
  /**
   * Sets or clears `deactivated_at`. Deactivating refuses (returns false) when the user is the
   * last active admin, checked in the same statement; false also when nothing changed.
   */
  setUserDeactivated(userId: number, at: number | null): Promise<boolean>
  setPasswordHash(userId: number, passwordHash: string): Promise<void>
  /** Ends the user's UI sessions (all, or all but `exceptSessionId`); returns how many. */
  deleteUserSessions(userId: number, exceptSessionId?: number): Promise<number>
  createAccountLink(link: NewAccountLink): Promise<AccountLink>
  findAccountLink(tokenHash: string): Promise<AccountLink | undefined>
  /**
   * Marks a link used if it is still usable at `now` (not used, revoked or expired), in one
   * statement, so two concurrent uses of one link cannot both succeed.
   */
  useAccountLink(id: number, now: number): Promise<boolean>
  /** Invitations neither used, revoked nor expired at `now`, newest first. */
  listPendingInvites(now: number): Promise<AccountLink[]>
  /** Revokes a link of this kind that is not used yet; false when there is none. */
  revokeAccountLink(kind: AccountLinkKind, id: number, now: number): Promise<boolean>
}

/** Who did an audited action. */
export type AuditActorKind = 'user' | 'admin-token' | 'system'

/** One audit log row. */
export interface AuditEntry {
  id: number
  at: number
  actorUserId: number | null
  actorKind: AuditActorKind
  action: string
  projectId: number | null
  target: string
  /** JSON object text. */
  details: string
}

/** The audit log: append and read, newest first. */
export interface AuditStore {
  insertAudit(entry: Omit<AuditEntry, 'id'>): Promise<AuditEntry>
  /** Entries newest first, keyset-paged by id, optionally of one action. */
  listAudit(
    filter: { action?: string | undefined },
    page: Page,
  ): Promise<{ entries: AuditEntry[]; next?: string }>
}
