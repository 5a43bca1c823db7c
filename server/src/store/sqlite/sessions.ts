import type Database from 'better-sqlite3'
import { type SessionRow, type SessionUserRow, toSession, toUser } from '../rows/sessions.ts'
import type { SessionStore } from '../types.ts'

const COLUMNS = 'id, user_id, csrf_token, created_at, last_seen_at, expires_at'

/** Web UI sessions on SQLite (table `ui_sessions`, migration 005). */
export function sqliteSessions(db: Database.Database): SessionStore {
  const insert = db.prepare<[string, number, string, number, number, number], SessionRow>(
    `INSERT INTO ui_sessions (token_hash, user_id, csrf_token, created_at, last_seen_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
  )
  const byHash = db.prepare<[string, number], SessionUserRow>(
    `SELECT s.id, s.user_id, s.csrf_token, s.created_at, s.last_seen_at, s.expires_at,
       u.email, u.password_hash, u.is_admin, u.created_at AS user_created_at, u.deactivated_at
     FROM ui_sessions s JOIN users u ON u.id = s.user_id
     WHERE s.token_hash = ? AND s.expires_at > ?`,
  )
  const touch = db.prepare<[number, number, number]>(
    'UPDATE ui_sessions SET last_seen_at = ?, expires_at = ? WHERE id = ?',
  )
  const remove = db.prepare<[string]>('DELETE FROM ui_sessions WHERE token_hash = ?')
  const expired = db.prepare<[number]>('DELETE FROM ui_sessions WHERE expires_at <= ?')
  return {
    createSession: async (userId, tokenHash, csrfToken, now, expiresAt) => {
      const r = insert.get(tokenHash, userId, csrfToken, now, now, expiresAt)
      if (r === undefined) throw new Error('session insert returned nothing')
      return toSession(r)
    },
    findSession: async (tokenHash, now) => {
      const r = byHash.get(tokenHash, now)
      return r === undefined ? undefined : { ...toSession(r), user: toUser(r) }
    },
    touchSession: async (id, now, expiresAt) => {
      touch.run(now, expiresAt, id)
    },
    deleteSession: async (tokenHash) => {
      remove.run(tokenHash)
    },
    deleteExpiredSessions: async (now) => expired.run(now).changes,
  }
}
