import type { AccountStore } from '../account-store.ts'
import { type TokenRow, toToken, toUser, type UserRow } from '../rows/accounts.ts'
import type { SqlPort } from '../sql/port.ts'
import { raw, sql } from '../sql/statement.ts'
import { TOKEN_SCOPES } from '../team-types.ts'

const TOKEN_COLUMNS = raw('id, user_id, name, created_at, revoked_at, scopes')

/** Users and API tokens, written once for both backends. */
export function accountQueries(db: SqlPort): AccountStore {
  const byId = (id: number) => db.first<UserRow>(sql`SELECT * FROM users WHERE id = ${id}`)
  return {
    countUsers: async () =>
      (await db.first<{ n: number }>(sql`SELECT COUNT(*) AS n FROM users`))?.n ?? 0,
    createUser: async (email, passwordHash, isAdmin) => {
      const r = await db.first<UserRow>(
        sql`INSERT INTO users (email, password_hash, is_admin, created_at)
            VALUES (${email}, ${passwordHash}, ${isAdmin ? 1 : 0}, ${Date.now()}) RETURNING *`,
      )
      if (r === undefined) throw new Error('user insert returned nothing')
      return toUser(r)
    },
    findUserByEmail: async (email) => {
      const r = await db.first<UserRow>(sql`SELECT * FROM users WHERE email = ${email}`)
      return r === undefined ? undefined : toUser(r)
    },
    getUser: async (id) => {
      const r = await byId(id)
      return r === undefined ? undefined : toUser(r)
    },
    createToken: async (userId, name, tokenHash, scopes = TOKEN_SCOPES) => {
      const r = await db.first<TokenRow>(
        sql`INSERT INTO api_tokens (user_id, name, token_hash, created_at, scopes)
            VALUES (${userId}, ${name}, ${tokenHash}, ${Date.now()}, ${scopes.join(' ')})
            RETURNING ${TOKEN_COLUMNS}`,
      )
      if (r === undefined) throw new Error('token insert returned nothing')
      return toToken(r)
    },
    findToken: async (tokenHash) => {
      const t = await db.first<TokenRow>(
        sql`SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE token_hash = ${tokenHash} AND revoked_at IS NULL`,
      )
      if (t === undefined) return undefined
      const u = await byId(t.user_id)
      return u === undefined ? undefined : { ...toToken(t), user: toUser(u) }
    },
    listTokens: async (userId) =>
      (
        await db.all<TokenRow>(
          sql`SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE user_id = ${userId} ORDER BY id`,
        )
      ).map(toToken),
    revokeToken: async (userId, tokenId) =>
      (await db.run(
        sql`UPDATE api_tokens SET revoked_at = ${Date.now()}
            WHERE user_id = ${userId} AND id = ${tokenId} AND revoked_at IS NULL`,
      )) > 0,
  }
}
