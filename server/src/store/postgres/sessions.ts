import type pg from 'pg'
import { type SessionRow, type SessionUserRow, toSession, toUser } from '../rows/sessions.ts'
import type { SessionStore } from '../types.ts'
import { first, run } from './db.ts'

const COLUMNS = 'id, user_id, csrf_token, created_at, last_seen_at, expires_at'

/** Web UI sessions on PostgreSQL. */
export function pgSessions(pool: pg.Pool): SessionStore {
  return {
    createSession: async (userId, tokenHash, csrfToken, now, expiresAt) => {
      const r = await first<SessionRow>(
        pool,
        `INSERT INTO ui_sessions (token_hash, user_id, csrf_token, created_at, last_seen_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
        [tokenHash, userId, csrfToken, now, now, expiresAt],
      )
      if (r === undefined) throw new Error('session insert returned nothing')
      return toSession(r)
    },
    findSession: async (tokenHash, now) => {
      const r = await first<SessionUserRow>(
        pool,
        `SELECT s.id, s.user_id, s.csrf_token, s.created_at, s.last_seen_at, s.expires_at,
           u.email, u.password_hash, u.is_admin, u.created_at AS user_created_at, u.deactivated_at
         FROM ui_sessions s JOIN users u ON u.id = s.user_id
         WHERE s.token_hash = $1 AND s.expires_at > $2`,
        [tokenHash, now],
      )
      return r === undefined ? undefined : { ...toSession(r), user: toUser(r) }
    },
    touchSession: async (id, now, expiresAt) => {
      await run(pool, 'UPDATE ui_sessions SET last_seen_at = $1, expires_at = $2 WHERE id = $3', [
        now,
        expiresAt,
        id,
      ])
    },
    deleteSession: async (tokenHash) => {
      await run(pool, 'DELETE FROM ui_sessions WHERE token_hash = $1', [tokenHash])
    },
    deleteExpiredSessions: (now) =>
      run(pool, 'DELETE FROM ui_sessions WHERE expires_at <= $1', [now]),
  }
}
