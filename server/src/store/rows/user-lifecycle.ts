/**
 * Account link and audit log rows as both stores read them, and their mapping to the store
 * types. Shared so the SQLite and PostgreSQL stores cannot map a column differently.
 */
import { raw, type Statement, sql } from '../sql/statement.ts'
import type {
  AccountLink,
  AccountLinkKind,
  AuditActorKind,
  AuditEntry,
} from '../user-lifecycle-types.ts'

/** An `account_links` row as the SQL returns it. */
export interface AccountLinkRow {
  id: number
  kind: string
  email: string
  user_id: number | null
  is_admin: number
  created_by: number | null
  created_at: number
  expires_at: number
  used_at: number | null
  revoked_at: number | null
}

/** The columns of `AccountLinkRow` (the hash is never read back). */
export const LINK_COLUMNS = raw(
  'id, kind, email, user_id, is_admin, created_by, created_at, expires_at, used_at, revoked_at',
)

/** Maps an `AccountLinkRow` to the store's `AccountLink`. */
export const toAccountLink = (r: AccountLinkRow): AccountLink => ({
  id: r.id,
  kind: r.kind as AccountLinkKind,
  email: r.email,
  userId: r.user_id,
  isAdmin: r.is_admin === 1,
  createdBy: r.created_by,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  usedAt: r.used_at,
  revokedAt: r.revoked_at,
})

/** An `audit_log` row as the SQL returns it. */
export interface AuditRow {
  id: number
  at: number
  actor_user_id: number | null
  actor_kind: string
  action: string
  project_id: number | null
  target: string
  details: string
}

/** Maps an `AuditRow` to the store's `AuditEntry`. */
export const toAuditEntry = (r: AuditRow): AuditEntry => ({
  id: r.id,
  at: r.at,
  actorUserId: r.actor_user_id,
  actorKind: r.actor_kind as AuditActorKind,
  action: r.action,
  projectId: r.project_id,
  target: r.target,
  details: r.details,
})

/** The id an audit page continues below (`next` of the previous page), if the cursor is one. */
export function auditCursor(cursor: string | undefined): number | undefined {
  const n = cursor === undefined ? Number.NaN : Number(cursor)
  return Number.isSafeInteger(n) ? n : undefined
}

/**
 * The last-active-admin rule as one SQL condition on the user row `otherId` being deactivated:
 * the row is not an admin, or another active admin exists.
 */
export const notLastAdmin = (otherId: number): Statement =>
  sql`(is_admin = 0 OR EXISTS (SELECT 1 FROM users o WHERE o.is_admin = 1 AND o.deactivated_at IS NULL AND o.id <> ${otherId}))`
