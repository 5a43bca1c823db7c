import type Database from 'better-sqlite3'
import { type TokenRow, toToken, toUser, type UserRow } from '../rows/accounts.ts'
import { TOKEN_SCOPES } from '../team-types.ts'
import type { AccountStore } from '../types.ts'

/** Users and API tokens on SQLite. */
export function sqliteAccounts(db: Database.Database): AccountStore {
  const count = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM users')
  const insertUser = db.prepare<[string, string, number, number], UserRow>(
    'INSERT INTO users (email, password_hash, is_admin, created_at) VALUES (?, ?, ?, ?) RETURNING *',
  )
  const byEmail = db.prepare<[string], UserRow>('SELECT * FROM users WHERE email = ?')
  const byId = db.prepare<[number], UserRow>('SELECT * FROM users WHERE id = ?')
  const insertToken = db.prepare<[number, string, string, number, string], TokenRow>(
    'INSERT INTO api_tokens (user_id, name, token_hash, created_at, scopes) VALUES (?, ?, ?, ?, ?) RETURNING id, user_id, name, created_at, revoked_at, scopes',
  )
  const tokenByHash = db.prepare<[string], TokenRow>(
    'SELECT id, user_id, name, created_at, revoked_at, scopes FROM api_tokens WHERE token_hash = ? AND revoked_at IS NULL',
  )
  const tokensOf = db.prepare<[number], TokenRow>(
    'SELECT id, user_id, name, created_at, revoked_at, scopes FROM api_tokens WHERE user_id = ? ORDER BY id',
  )
  const revoke = db.prepare<[number, number, number]>(
    'UPDATE api_tokens SET revoked_at = ? WHERE user_id = ? AND id = ? AND revoked_at IS NULL',
  )
  return {
    countUsers: async () => count.get()?.n ?? 0,
    createUser: async (email, passwordHash, isAdmin) => {
      const r = insertUser.get(email, passwordHash, isAdmin ? 1 : 0, Date.now())
      if (r === undefined) throw new Error('user insert returned nothing')
      return toUser(r)
    },
    findUserByEmail: async (email) => {
      const r = byEmail.get(email)
      return r === undefined ? undefined : toUser(r)
    },
    getUser: async (id) => {
      const r = byId.get(id)
      return r === undefined ? undefined : toUser(r)
    },
    createToken: async (userId, name, tokenHash, scopes = TOKEN_SCOPES) => {
      const r = insertToken.get(userId, name, tokenHash, Date.now(), scopes.join(' '))
      if (r === undefined) throw new Error('token insert returned nothing')
      return toToken(r)
    },
    findToken: async (tokenHash) => {
      const t = tokenByHash.get(tokenHash)
      if (t === undefined) return undefined
      const u = byId.get(t.user_id)
      return u === undefined ? undefined : { ...toToken(t), user: toUser(u) }
    },
    listTokens: async (userId) => tokensOf.all(userId).map(toToken),
    revokeToken: async (userId, tokenId) => revoke.run(Date.now(), userId, tokenId).changes > 0,
  }
}
