import type { FastifyRequest } from 'fastify'
import type { TeamRole, TokenScope } from '../store/team-types.ts'

/** A change of who may do what, as the audit log will record it. */
export type AccessChange =
  | { kind: 'team.created'; teamId: number; name: string }
  | { kind: 'member.added'; teamId: number; userId: number; role: TeamRole }
  | { kind: 'member.role_changed'; teamId: number; userId: number; role: TeamRole }
  | { kind: 'member.removed'; teamId: number; userId: number }
  | { kind: 'project.moved'; projectId: number; fromTeamId: number; toTeamId: number }
  | { kind: 'token.created'; tokenId: number; userId: number; scopes: readonly TokenScope[] }

/**
 * The one place every access change passes through after it is stored, so the audit log
 * (who, when, what) has a single call to hook into: `req.principal` is who, now is when.
 * Until that log exists this records the change in the request's log line only.
 */
export async function recordAccessChange(req: FastifyRequest, change: AccessChange): Promise<void> {
  req.log.info({ change, by: req.principal?.userId ?? 'admin-token' }, 'access change')
}
