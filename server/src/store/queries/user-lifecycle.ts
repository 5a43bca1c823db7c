import { toUser, type UserRow } from '../rows/accounts.ts'
import {
  type AccountLinkRow,
  type AuditRow,
  auditCursor,
  LINK_COLUMNS,
  notLastAdmin,
  toAccountLink,
  toAuditEntry,
} from '../rows/user-lifecycle.ts'
import type { SqlPort } from '../sql/port.ts'
import { join, type Statement, sql } from '../sql/statement.ts'
import type { AuditStore, UserLifecycleStore } from '../user-lifecycle-types.ts'

/** User lifecycle (deactivation, invitations, password resets) and the audit log, written once. */
export function userLifecycleQueries(db: SqlPort): UserLifecycleStore & AuditStore {
  return {
    listUsers: async () =>
      (await db.all<UserRow>(sql`SELECT * FROM users ORDER BY id`)).map(toUser),
    setUserDeactivated: async (userId, at) =>
      (await db.run(
        at === null
          ? sql`UPDATE users SET deactivated_at = NULL WHERE id = ${userId} AND deactivated_at IS NOT NULL`
          : sql`UPDATE users SET deactivated_at = ${at}
                WHERE id = ${userId} AND deactivated_at IS NULL AND ${notLastAdmin(userId)}`,
      )) > 0,
    setPasswordHash: async (userId, passwordHash) => {
      await db.run(sql`UPDATE users SET password_hash = ${passwordHash} WHERE id = ${userId}`)
    },
    deleteUserSessions: (userId, exceptSessionId) =>
      db.run(
        sql`DELETE FROM ui_sessions WHERE user_id = ${userId} AND id <> ${exceptSessionId ?? -1}`,
      ),
    createAccountLink: async (l) => {
      const r = await db.first<AccountLinkRow>(
        sql`INSERT INTO account_links (kind, token_hash, email, user_id, is_admin, created_by, created_at, expires_at)
            VALUES (${l.kind}, ${l.tokenHash}, ${l.email}, ${l.userId}, ${l.isAdmin ? 1 : 0},
                    ${l.createdBy}, ${l.createdAt}, ${l.expiresAt})
            RETURNING ${LINK_COLUMNS}`,
      )
      if (r === undefined) throw new Error('link insert returned nothing')
      return toAccountLink(r)
    },
    findAccountLink: async (tokenHash) => {
      const r = await db.first<AccountLinkRow>(
        sql`SELECT ${LINK_COLUMNS} FROM account_links WHERE token_hash = ${tokenHash}`,
      )
      return r === undefined ? undefined : toAccountLink(r)
    },
    useAccountLink: async (id, now) =>
      (await db.run(
        sql`UPDATE account_links SET used_at = ${now}
            WHERE id = ${id} AND used_at IS NULL AND revoked_at IS NULL AND expires_at > ${now}`,
      )) > 0,
    listPendingInvites: async (now) =>
      (
        await db.all<AccountLinkRow>(
          sql`SELECT ${LINK_COLUMNS} FROM account_links WHERE kind = 'invite' AND used_at IS NULL
              AND revoked_at IS NULL AND expires_at > ${now} ORDER BY id DESC`,
        )
      ).map(toAccountLink),
    revokeAccountLink: async (kind, id, now) =>
      (await db.run(
        sql`UPDATE account_links SET revoked_at = ${now}
            WHERE kind = ${kind} AND id = ${id} AND used_at IS NULL AND revoked_at IS NULL`,
      )) > 0,
    insertAudit: async (e) => {
      const r = await db.first<AuditRow>(
        sql`INSERT INTO audit_log (at, actor_user_id, actor_kind, action, project_id, target, details)
            VALUES (${e.at}, ${e.actorUserId}, ${e.actorKind}, ${e.action}, ${e.projectId},
                    ${e.target}, ${e.details})
            RETURNING *`,
      )
      if (r === undefined) throw new Error('audit insert returned nothing')
      return toAuditEntry(r)
    },
    listAudit: async (filter, page) => {
      const where: Statement[] = []
      if (filter.action !== undefined) where.push(sql`action = ${filter.action}`)
      const before = auditCursor(page.cursor)
      if (before !== undefined) where.push(sql`id < ${before}`)
      const rows = await db.all<AuditRow>(
        sql`SELECT * FROM audit_log ${where.length === 0 ? sql`` : sql`WHERE ${join(where, ' AND ')}`}
            ORDER BY id DESC LIMIT ${page.limit + 1}`,
      )
      const entries = rows.slice(0, page.limit).map(toAuditEntry)
      const last = entries[entries.length - 1]
      return rows.length > page.limit && last !== undefined
        ? { entries, next: String(last.id) }
        : { entries }
    },
  }
}
