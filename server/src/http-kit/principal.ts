import { timingSafeEqual } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { ApiError } from '../errors.ts'
import { TOKEN_SCOPES, type TokenScope } from '../store/team-types.ts'
import type { AccountStore } from '../store/types.ts'
import { hashToken } from './tokens.ts'

/** Who is calling the management API. */
export interface Principal {
  /** null for the `INGEST_ADMIN_TOKEN` automation token. */
  userId: number | null
  isAdmin: boolean
  via: 'token' | 'admin-token' | 'session'
  /** A token's scopes; sessions and the automation token have all (`accounts/permissions.ts`). */
  scopes: readonly TokenScope[]
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal
  }
}

/** Other ways to authenticate (the web UI adds its session cookie here). */
export type PrincipalSource = (req: FastifyRequest) => Promise<Principal | undefined>

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/**
 * Resolves the bearer token (or another registered source) of a management request; 401 with a
 * JSON detail when there is none or it is wrong.
 */
export function principalResolver(
  accounts: AccountStore,
  adminToken: string | undefined,
  extra: PrincipalSource[],
): (req: FastifyRequest) => Promise<Principal> {
  return async (req) => {
    const header = req.headers.authorization
    if (typeof header === 'string' && /^bearer\s/i.test(header)) {
      const token = header.slice(7).trim()
      if (adminToken !== undefined && sameSecret(token, adminToken)) {
        return { userId: null, isAdmin: true, via: 'admin-token', scopes: TOKEN_SCOPES }
      }
      const found = await accounts.findToken(hashToken(token))
      if (found === undefined) throw new ApiError('unauthorized', 'invalid or revoked API token')
      // A deactivated user's tokens stop at once (they come back if the user is reactivated).
      if (found.user.deactivatedAt !== null)
        throw new ApiError('unauthorized', 'the account of this API token is deactivated')
      return {
        userId: found.userId,
        isAdmin: found.user.isAdmin,
        via: 'token',
        scopes: found.scopes,
      }
    }
    for (const source of extra) {
      const p = await source(req)
      if (p !== undefined) return p
    }
    throw new ApiError(
      'unauthorized',
      'authentication required: send Authorization: Bearer <token>',
    )
  }
}
