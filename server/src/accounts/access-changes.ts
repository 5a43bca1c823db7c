import type { FastifyRequest } from 'fastify'
import { actorOf, recordAudit } from '../audit/record.ts'
import type { TeamRole } from '../store/team-types.ts'
import type { Store } from '../store/types.ts'

/** A change of who may do what, as the audit log records it. */
export type AccessChange =
  | { kind: 'team.created'; teamId: number; name: string }
  | { kind: 'member.added'; teamId: number; userId: number; role: TeamRole }
  | { kind: 'member.role_changed'; teamId: number; userId: number; role: TeamRole }
  | { kind: 'member.removed'; teamId: number; userId: number }
  | { kind: 'project.moved'; projectId: number; fromTeamId: number; toTeamId: number }

/**
 * The one place every team, membership and project-ownership change passes through after it
 * is stored, so each leaves exactly one audit row: `req.principal` is who, now is when.
 */
export async function recordAccessChange(
  store: Pick<Store, 'insertAudit'>,
  req: FastifyRequest,
  change: AccessChange,
): Promise<void> {
  const actor = actorOf(req.principal ?? { userId: null })
  switch (change.kind) {
    case 'team.created':
      await recordAudit(store, actor, 'team.create', {
        target: `team:${change.teamId}`,
        details: { name: change.name },
      })
      return
    case 'member.added':
    case 'member.role_changed':
      await recordAudit(
        store,
        actor,
        change.kind === 'member.added' ? 'member.add' : 'member.role',
        {
          target: `team:${change.teamId}`,
          details: { user: change.userId, role: change.role },
        },
      )
      return
    case 'member.removed':
      await recordAudit(store, actor, 'member.remove', {
        target: `team:${change.teamId}`,
        details: { user: change.userId },
      })
      return
    case 'project.moved':
      await recordAudit(store, actor, 'project.move', {
        projectId: change.projectId,
        target: `project:${change.projectId}`,
        details: { from_team: change.fromTeamId, to_team: change.toTeamId },
      })
      return
  }
}
