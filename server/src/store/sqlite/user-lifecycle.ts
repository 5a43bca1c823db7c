import type Database from 'better-sqlite3'
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

/** User lifecycle (migration 008) and the audit log on SQLite. */
export function sqliteUserLifecycle(db: Database.Database): UserLifecycleStore & AuditStore {
  const users = db.prepare<[], UserRow>('SELECT * FROM users ORDER BY id')
  const deactivate = db.prepare<[number, number, number]>(
    `UPDATE users SET deactivated_at = ? WHERE id = ? AND deactivated_at IS NULL AND ${NOT_LAST_ADMIN('?')}`,
  )
  const reactivate = db.prepare<[number]>(
    'UPDATE users SET deactivated_at = NULL WHERE id = ? AND deactivated_at IS NOT NULL',
  )
  const setHash = db.prepare<[string, number]>('UPDATE users SET password_hash = ? WHERE id = ?')
  const dropSessions = db.prepare<[number, number]>(
    'DELETE FROM ui_sessions WHERE user_id = ? AND id <> ?',
  )
  const insertLink = db.prepare<
    [string, string, string, number | null, number, number | null, number, number],
    AccountLinkRow
  >(
    `INSERT INTO account_links (kind, token_hash, email, user_id, is_admin, created_by, created_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${LINK_COLUMNS}`,
  )
  const linkByHash = db.prepare<[string], AccountLinkRow>(
    `SELECT ${LINK_COLUMNS} FROM account_links WHERE token_hash = ?`,
  )
  const useLink = db.prepare<[number, number, number]>(
    'UPDATE account_links SET used_at = ? WHERE id = ? AND used_at IS NULL AND revoked_at IS NULL AND expires_at > ?',
  )
  const pending = db.prepare<[number], AccountLinkRow>(
    `SELECT ${LINK_COLUMNS} FROM account_links WHERE kind = 'invite' AND used_at IS NULL
     AND revoked_at IS NULL AND expires_at > ? ORDER BY id DESC`,
  )
  const revokeLink = db.prepare<[number, string, number]>(
    'UPDATE account_links SET revoked_at = ? WHERE kind = ? AND id = ? AND used_at IS NULL AND revoked_at IS NULL',
  )
  const insertAudit = db.prepare<
    [number, number | null, string, string, number | null, string, string],
    AuditRow
  >(
    `INSERT INTO audit_log (at, actor_user_id, actor_kind, action, project_id, target, details)
     VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *`,
  )
  return {
    listUsers: async () => users.all().map(toUser),
    setUserDeactivated: async (userId, at) =>
      (at === null ? reactivate.run(userId) : deactivate.run(at, userId, userId)).changes > 0,
    setPasswordHash: async (userId, passwordHash) => {
      setHash.run(passwordHash, userId)
    },
    deleteUserSessions: async (userId, exceptSessionId) =>
      dropSessions.run(userId, exceptSessionId ?? -1).changes,
    createAccountLink: async (l) => {
      const r = insertLink.get(...accountLinkParams(l))
      if (r === undefined) throw new Error('link insert returned nothing')
      return toAccountLink(r)
    },
    findAccountLink: async (tokenHash) => {
      const r = linkByHash.get(tokenHash)
      return r === undefined ? undefined : toAccountLink(r)
    },
    useAccountLink: async (id, now) => useLink.run(now, id, now).changes > 0,
    listPendingInvites: async (now) => pending.all(now).map(toAccountLink),
    revokeAccountLink: async (kind, id, now) => revokeLink.run(now, kind, id).changes > 0,
    insertAudit: async (e) => {
      const r = insertAudit.get(
        e.at,
        e.actorUserId,
        e.actorKind,
        e.action,
        e.projectId,
        e.target,
        e.details,
      )
      if (r === undefined) throw new Error('audit insert returned nothing')
      return toAuditEntry(r)
    },
    listAudit: async (filter, page) => {
      const where: string[] = []
      const args: (string | number)[] = []
      if (filter.action !== undefined) {
        where.push('action = ?')
        args.push(filter.action)
      }
      const before = auditCursor(page.cursor)
      if (before !== undefined) {
        where.push('id < ?')
        args.push(before)
      }
      const rows = db
        .prepare<(string | number)[], AuditRow>(
          `SELECT * FROM audit_log ${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`}
           ORDER BY id DESC LIMIT ?`,
        )
        .all(...args, page.limit + 1)
      const entries = rows.slice(0, page.limit).map(toAuditEntry)
      const last = entries[entries.length - 1]
      return rows.length > page.limit && last !== undefined
        ? { entries, next: String(last.id) }
        : { entries }
    },
  }
}
