import type pg from 'pg'
import { toUser, type UserRow } from '../rows/accounts.ts'
import {
  type AccountLinkRow,
  type AuditRow,
  accountLinkParams,
  auditCursor,
  LINK_COLUMNS,
  NOT_LAST_ADMIN,
  toAccountLink,
  toAuditEntry,
} from '../rows/user-lifecycle.ts'
import type { AuditStore, UserLifecycleStore } from '../user-lifecycle-types.ts'
import { all, first, run } from './db.ts'

/** User lifecycle (migration 002) and the audit log on PostgreSQL. */
export function pgUserLifecycle(pool: pg.Pool): UserLifecycleStore & AuditStore {
  return {
    listUsers: async () =>
      (await all<UserRow>(pool, 'SELECT * FROM users ORDER BY id')).map(toUser),
    setUserDeactivated: async (userId, at) =>
      (at === null
        ? await run(
            pool,
            'UPDATE users SET deactivated_at = NULL WHERE id = $1 AND deactivated_at IS NOT NULL',
            [userId],
          )
        : await run(
            pool,
            `UPDATE users SET deactivated_at = $1 WHERE id = $2 AND deactivated_at IS NULL AND ${NOT_LAST_ADMIN('$2')}`,
            [at, userId],
          )) > 0,
    setPasswordHash: async (userId, passwordHash) => {
      await run(pool, 'UPDATE users SET password_hash = $1 WHERE id = $2', [passwordHash, userId])
    },
    deleteUserSessions: (userId, exceptSessionId) =>
      run(pool, 'DELETE FROM ui_sessions WHERE user_id = $1 AND id <> $2', [
        userId,
        exceptSessionId ?? -1,
      ]),
    createAccountLink: async (l) => {
      const r = await first<AccountLinkRow>(
        pool,
        `INSERT INTO account_links (kind, token_hash, email, user_id, is_admin, created_by, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${LINK_COLUMNS}`,
        accountLinkParams(l),
      )
      if (r === undefined) throw new Error('link insert returned nothing')
      return toAccountLink(r)
    },
    findAccountLink: async (tokenHash) => {
      const r = await first<AccountLinkRow>(
        pool,
        `SELECT ${LINK_COLUMNS} FROM account_links WHERE token_hash = $1`,
        [tokenHash],
      )
      return r === undefined ? undefined : toAccountLink(r)
    },
    useAccountLink: async (id, now) =>
      (await run(
        pool,
        'UPDATE account_links SET used_at = $1 WHERE id = $2 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > $1',
        [now, id],
      )) > 0,
    listPendingInvites: async (now) =>
      (
        await all<AccountLinkRow>(
          pool,
          `SELECT ${LINK_COLUMNS} FROM account_links WHERE kind = 'invite' AND used_at IS NULL
           AND revoked_at IS NULL AND expires_at > $1 ORDER BY id DESC`,
          [now],
        )
      ).map(toAccountLink),
    revokeAccountLink: async (kind, id, now) =>
      (await run(
        pool,
        'UPDATE account_links SET revoked_at = $1 WHERE kind = $2 AND id = $3 AND used_at IS NULL AND revoked_at IS NULL',
        [now, kind, id],
      )) > 0,
    insertAudit: async (e) => {
      const r = await first<AuditRow>(
        pool,
        `INSERT INTO audit_log (at, actor_user_id, actor_kind, action, project_id, target, details)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
        [e.at, e.actorUserId, e.actorKind, e.action, e.projectId, e.target, e.details],
      )
      if (r === undefined) throw new Error('audit insert returned nothing')
      return toAuditEntry(r)
    },
    listAudit: async (filter, page) => {
      const where: string[] = []
      const args: (string | number)[] = []
      if (filter.action !== undefined) {
        args.push(filter.action)
        where.push(`action = $${args.length}`)
      }
      const before = auditCursor(page.cursor)
      if (before !== undefined) {
        args.push(before)
        where.push(`id < $${args.length}`)
      }
      args.push(page.limit + 1)
      const rows = await all<AuditRow>(
        pool,
        `SELECT * FROM audit_log ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}
         ORDER BY id DESC LIMIT $${args.length}`,
        args,
      )
      const entries = rows.slice(0, page.limit).map(toAuditEntry)
      const last = entries[entries.length - 1]
      return rows.length > page.limit && last !== undefined
        ? { entries, next: String(last.id) }
        : { entries }
    },
  }
}
