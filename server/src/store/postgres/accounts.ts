import type pg from 'pg'
import { type TokenRow, toToken, toUser, type UserRow } from '../rows/accounts.ts'
import { TOKEN_SCOPES } from '../team-types.ts'
import type { AccountStore } from '../types.ts'
import { all, first, run } from './db.ts'

const TOKEN_COLUMNS = 'id, user_id, name, created_at, revoked_at, scopes'

/** Users and API tokens on PostgreSQL. */
export function pgAccounts(pool: pg.Pool): AccountStore {
  const byId = (id: number) => first<UserRow>(pool, 'SELECT * FROM users WHERE id = $1', [id])
  return {
    countUsers: async () =>
      (await first<{ n: number }>(pool, 'SELECT COUNT(*) AS n FROM users'))?.n ?? 0,
    createUser: async (email, passwordHash, isAdmin) => {
      const r = await first<UserRow>(
        pool,
        'INSERT INTO users (email, password_hash, is_admin, created_at) VALUES ($1, $2, $3, $4) RETURNING *',
        [email, passwordHash, isAdmin ? 1 : 0, Date.now()],
      )
      if (r === undefined) throw new Error('user insert returned nothing')
      return toUser(r)
    },
    findUserByEmail: async (email) => {
      const r = await first<UserRow>(pool, 'SELECT * FROM users WHERE email = $1', [email])
      return r === undefined ? undefined : toUser(r)
    },
    getUser: async (id) => {
      const r = await byId(id)
      return r === undefined ? undefined : toUser(r)
    },
    createToken: async (userId, name, tokenHash, scopes = TOKEN_SCOPES) => {
      const r = await first<TokenRow>(
        pool,
        `INSERT INTO api_tokens (user_id, name, token_hash, created_at, scopes) VALUES ($1, $2, $3, $4, $5) RETURNING ${TOKEN_COLUMNS}`,
        [userId, name, tokenHash, Date.now(), scopes.join(' ')],
      )
      if (r === undefined) throw new Error('token insert returned nothing')
      return toToken(r)
    },
    findToken: async (tokenHash) => {
      const t = await first<TokenRow>(
        pool,
        `SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE token_hash = $1 AND revoked_at IS NULL`,
        [tokenHash],
      )
      if (t === undefined) return undefined
      const u = await byId(t.user_id)
      return u === undefined ? undefined : { ...toToken(t), user: toUser(u) }
    },
    listTokens: async (userId) =>
      (
        await all<TokenRow>(
          pool,
          `SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE user_id = $1 ORDER BY id`,
          [userId],
        )
      ).map(toToken),
    revokeToken: async (userId, tokenId) =>
      (await run(
        pool,
        'UPDATE api_tokens SET revoked_at = $1 WHERE user_id = $2 AND id = $3 AND revoked_at IS NULL',
        [Date.now(), userId, tokenId],
      )) > 0,
  }
}
