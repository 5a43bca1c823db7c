import type { FastifyRequest } from 'fastify'
import type { Action } from './permissions.ts'

/**
 * Where a route finds the object whose team decides access: a path parameter (`projectId`,
 * `issueId`, `teamId`), a team's slug (`org` of the sentry-cli routes), the `project` query
 * parameter (the live stream), or the team a new project is created in (`team_id` of the JSON body or `team` of a form; absent: a team the
 * caller administers).
 */
export type Locator =
  | { param: 'projectId' | 'issueId' | 'teamId' }
  | { teamSlug: 'org' }
  | { query: 'project' }
  | { newProjectTeam: true }

/**
 * What a route needs, declared on every route as `config: { access }` and enforced by the one
 * hook of {@link installAccessControl}:
 * - `public`: no sign-in (ingest, which checks its DSN key itself; health; login; static files);
 * - `signed-in`: any user or token; the handler shows only what the caller may see (lists,
 *   the caller's own tokens);
 * - an action `on` an object: the caller's role in the object's team, capped by token scope.
 */
export type Access =
  | { need: 'public' }
  | { need: 'signed-in' }
  | { need: 'instance:admin' }
  | { need: Action; on: Locator }

declare module 'fastify' {
  interface FastifyRequest {
    /** The team the access hook checked the request against (a new project is created there). */
    accessTeamId?: number
  }
  interface FastifyContextConfig {
    /** The access rule of the route (required on every route; see `accounts/access.ts`). */
    access?: Access
  }
}

/** No sign-in needed. */
export const PUBLIC: Access = { need: 'public' }
/** Any signed-in user or token; the handler filters what it shows. */
export const SIGNED_IN: Access = { need: 'signed-in' }
/** The instance admin only (`users.is_admin`, `INGEST_ADMIN_TOKEN`). */
export const INSTANCE_ADMIN: Access = { need: 'instance:admin' }
/** `need` on the project of the `:projectId` path parameter. */
export const onProject = (need: Action): Access => ({ need, on: { param: 'projectId' } })
/** `need` on the project of the issue of the `:issueId` path parameter. */
export const onIssue = (need: Action): Access => ({ need, on: { param: 'issueId' } })
/** `need` on the team of the `:teamId` path parameter. */
export const onTeam = (need: Action): Access => ({ need, on: { param: 'teamId' } })
/** `need` on the team whose slug is the `:org` path parameter (sentry-cli's `--org`). */
export const onOrg = (need: Action): Access => ({ need, on: { teamSlug: 'org' } })
/** `need` on the project of the `?project=` query parameter. */
export const onQueryProject = (need: Action): Access => ({ need, on: { query: 'project' } })
/** Creating a project: `team:admin` on the team it is created in. */
export const ON_NEW_PROJECT_TEAM: Access = { need: 'team:admin', on: { newProjectTeam: true } }

/** Whether a route declared itself public (the UI's sign-in hook skips those). */
export const isPublic = (req: FastifyRequest): boolean =>
  req.routeOptions.config.access?.need === 'public'
