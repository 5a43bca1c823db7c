import type { Store } from '../store/types.ts'
import type { AuditActorKind, AuditEntry } from '../store/user-lifecycle-types.ts'

/** Who did an audited action: a user, the `INGEST_ADMIN_TOKEN`, or the server itself (CLI). */
export interface AuditActor {
  kind: AuditActorKind
  userId: number | null
}

/**
 * The actions the server records, with what each means (the audit page's filter and
 * docs/accounts-users.md list them). `recordAudit` takes any string, so a feature adds an action
 * here and makes one call.
 */
export const AUDIT_ACTIONS = {
  'project.create': 'a project was created (with its default DSN key)',
  'key.create': 'a component DSN key was minted',
  'key.revoke': 'a DSN key was revoked',
  'quota.change': "a project's event quota was set or removed",
  'privacy.change': "a project's data scrubbing or inbound filters were changed",
  'alert_rule.create': 'an alert rule was created',
  'alert_rule.delete': 'an alert rule was deleted',
  'token.create': 'an API token was created',
  'token.revoke': 'an API token was revoked',
  'user.invite': 'a user was invited by e-mail',
  'invite.revoke': 'a pending invitation was revoked',
  'invite.accept': 'an invitation was accepted (the user was created)',
  'user.deactivate': 'a user was deactivated',
  'user.reactivate': 'a user was reactivated',
  'password.reset': "a user's password was reset (by e-mail link or the operator command)",
  'team.create': 'a team was created',
  'member.add': 'a user was added to a team with a role',
  'member.role': "a team member's role was changed",
  'member.remove': 'a user was removed from a team',
  'project.move': 'a project was moved to another team',
} as const satisfies Record<string, string>

/** The actor of a request: a signed-in user or user token, else the admin token. */
export const actorOf = (who: { userId: number | null }): AuditActor =>
  who.userId === null ? { kind: 'admin-token', userId: null } : { kind: 'user', userId: who.userId }

/** The server itself (the operator command). */
export const SYSTEM_ACTOR: AuditActor = { kind: 'system', userId: null }

/**
 * Writes one audit row for an action that just succeeded, in the request that did it. `target`
 * names the object (`key:12`, `user:3`); `details` is stored as JSON and shown as text.
 */
export function recordAudit(
  store: Pick<Store, 'insertAudit'>,
  actor: AuditActor,
  action: string,
  what: { projectId?: number | null; target: string; details?: Record<string, unknown> },
): Promise<AuditEntry> {
  return store.insertAudit({
    at: Date.now(),
    actorUserId: actor.userId,
    actorKind: actor.kind,
    action,
    projectId: what.projectId ?? null,
    target: what.target,
    details: JSON.stringify(what.details ?? {}),
  })
}
