import type { UiSessionStore } from '../account-store.ts'
import { type SessionRow, type SessionUserRow, toSession, toUser } from '../rows/ui-sessions.ts'
import type { SqlPort } from '../sql/port.ts'
import { raw, sql } from '../sql/statement.ts'

const COLUMNS = raw('id, user_id, csrf_token, created_at, last_seen_at, expires_at')

/** Web UI login sessions (table `ui_sessions`), written once for both backends. */
export function uiSessionQueries(db: SqlPort): UiSessionStore {
  return {
    createSession: async (userId, tokenHash, csrfToken, now, expiresAt) => {
      const r = await db.first<SessionRow>(
        sql`INSERT INTO ui_sessions (token_hash, user_id, csrf_token, created_at, last_seen_at, expires_at)
            VALUES (${tokenHash}, ${userId}, ${csrfToken}, ${now}, ${now}, ${expiresAt})
            RETURNING ${COLUMNS}`,
      )
      if (r === undefined) throw new Error('session insert returned nothing')
      return toSession(r)
    },
    findSession: async (tokenHash, now) => {
      const r = await db.first<SessionUserRow>(
        sql`SELECT s.id, s.user_id, s.csrf_token, s.created_at, s.last_seen_at, s.expires_at,
              u.email, u.password_hash, u.is_admin, u.created_at AS user_created_at, u.deactivated_at
            FROM ui_sessions s JOIN users u ON u.id = s.user_id
            WHERE s.token_hash = ${tokenHash} AND s.expires_at > ${now}`,
      )
      return r === undefined ? undefined : { ...toSession(r), user: toUser(r) }
    },
    touchSession: async (id, now, expiresAt) => {
      await db.run(
        sql`UPDATE ui_sessions SET last_seen_at = ${now}, expires_at = ${expiresAt} WHERE id = ${id}`,
      )
    },
    deleteSession: async (tokenHash) => {
      await db.run(sql`DELETE FROM ui_sessions WHERE token_hash = ${tokenHash}`)
    },
    deleteExpiredSessions: (now) => db.run(sql`DELETE FROM ui_sessions WHERE expires_at <= ${now}`),
  }
}
