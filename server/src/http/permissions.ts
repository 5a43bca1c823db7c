import type { TeamRole, TokenScope } from '../store/team-types.ts'

/**
 * The permission model in one place: what each team role and each token scope allows. Routes
 * name the action they need (`access.ts`); nothing else decides who may do what.
 *
 * - `project:read`: see a project and everything in it (issues, events, releases, monitors,
 *   outcomes, keys, rules).
 * - `project:triage`: change issue state (resolve, ignore, review, bulk changes).
 * - `project:admin`: the project's settings: DSN keys, quota, alert rules.
 * - `team:admin`: the team's members and roles, creating projects in the team.
 * - `instance:admin`: teams themselves, moving projects between teams, the cron clock.
 */
export type Action =
  | 'project:read'
  | 'project:triage'
  | 'project:admin'
  | 'team:admin'
  | 'instance:admin'

/** Every action, weakest first (the docs table and the isolation test enumerate it). */
export const ACTIONS: readonly Action[] = [
  'project:read',
  'project:triage',
  'project:admin',
  'team:admin',
  'instance:admin',
]

/** What a role in a team allows on that team and its projects (Sentry's team roles, reduced). */
export const ROLE_ACTIONS: Readonly<Record<TeamRole, readonly Action[]>> = {
  viewer: ['project:read'],
  member: ['project:read', 'project:triage'],
  admin: ['project:read', 'project:triage', 'project:admin', 'team:admin'],
}

/**
 * What a token scope allows at most; a token never exceeds its user (the two are intersected).
 * `read` ⊂ `write` ⊂ `admin`, as Sentry's `project:read` / `project:write` / `project:admin`.
 */
export const SCOPE_ACTIONS: Readonly<Record<TokenScope, readonly Action[]>> = {
  read: ['project:read'],
  write: ['project:read', 'project:triage'],
  admin: ACTIONS,
}

/** Who is asking, as far as the permission model cares. */
export interface Grantee {
  /** `users.is_admin` or the `INGEST_ADMIN_TOKEN` automation token: every action everywhere. */
  isAdmin: boolean
  /** The token's scopes; a UI session and the automation token have all of them. */
  scopes: readonly TokenScope[]
}

/** Whether the token scopes (or the session, which has all of them) allow `action`. */
export function scopeAllows(scopes: readonly TokenScope[], action: Action): boolean {
  return scopes.some((s) => SCOPE_ACTIONS[s].includes(action))
}

/**
 * Whether `who`, holding `role` in the team that owns the object (undefined: not a member),
 * may do `action` on it. The instance admin may do everything, still capped by token scope.
 */
export function allows(who: Grantee, role: TeamRole | undefined, action: Action): boolean {
  if (!scopeAllows(who.scopes, action)) return false
  if (who.isAdmin) return true
  return role !== undefined && ROLE_ACTIONS[role].includes(action)
}
