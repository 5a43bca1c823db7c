import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ApiError, notFound } from '../errors.ts'
import { ACTIONS, type Action, allows } from '../http/permissions.ts'
import { type Access, type Locator, PUBLIC } from '../http/route-access.ts'
import type { Principal } from '../http-kit/principal.ts'
import { DEFAULT_TEAM_ID, type TeamRole } from '../store/team-types.ts'
import type { Project, Store } from '../store/types.ts'

/** A numeric id from a path/query/body value; anything else names nothing. */
function idOf(raw: unknown): number | undefined {
  const s = typeof raw === 'number' ? String(raw) : raw
  if (typeof s !== 'string' || !/^\d{1,15}$/.test(s)) return undefined
  const n = Number(s)
  return Number.isSafeInteger(n) ? n : undefined
}

const field = (obj: unknown, name: string): unknown =>
  typeof obj === 'object' && obj !== null ? (obj as Record<string, unknown>)[name] : undefined

/**
 * The team owning the located object and the 404 the object answers when the caller may not
 * see it, or the 404 a missing object answers: one error per kind, so both are the same.
 */
type Target = { teamId: number; hidden: ApiError } | { missing: ApiError }

const missing = (what: string): Target => ({ missing: notFound(what) })
const found = (teamId: number, what: string): Target => ({ teamId, hidden: notFound(what) })

async function projectTeam(store: Store, raw: unknown): Promise<Target> {
  const id = idOf(raw)
  const p = id === undefined ? undefined : await store.getProject(id)
  return p === undefined ? missing('project') : found(p.teamId, 'project')
}

/** The team a new project goes to: the one named in the body, else the caller's first. */
async function newProjectTeam(
  store: Store,
  req: FastifyRequest,
  principal: Principal,
  roles: Map<number, TeamRole>,
): Promise<Target> {
  const named = field(req.body, 'team_id') ?? field(req.body, 'team')
  if (named !== undefined && named !== '') {
    const id = idOf(named)
    const team = id === undefined ? undefined : await store.getTeam(id)
    return team === undefined ? missing('team') : found(team.id, 'team')
  }
  if (principal.isAdmin) return found(DEFAULT_TEAM_ID, 'team')
  const administered = [...roles].find(([, role]) => role === 'admin')
  const any = [...roles.keys()][0]
  if (administered !== undefined) return found(administered[0], 'team')
  if (any !== undefined) return found(any, 'team')
  throw new ApiError('forbidden', 'you belong to no team: ask an admin to add you to one')
}

async function locate(
  store: Store,
  on: Locator,
  req: FastifyRequest,
  principal: Principal,
  roles: Map<number, TeamRole>,
): Promise<Target> {
  if ('query' in on) return projectTeam(store, field(req.query, on.query))
  if ('newProjectTeam' in on) return newProjectTeam(store, req, principal, roles)
  if ('teamSlug' in on) {
    const slug = field(req.params, on.teamSlug)
    const team = (await store.listTeams()).find((t) => t.slug === slug)
    return team === undefined ? missing('organization') : found(team.id, 'organization')
  }
  const raw = field(req.params, on.param)
  if (on.param === 'projectId') return projectTeam(store, raw)
  if (on.param === 'teamId') {
    const id = idOf(raw)
    const team = id === undefined ? undefined : await store.getTeam(id)
    return team === undefined ? missing('team') : found(team.id, 'team')
  }
  const id = idOf(raw)
  const projectId = id === undefined ? undefined : await store.issueProjectId(id)
  if (projectId === undefined) return missing('issue')
  const p = await store.getProject(projectId)
  return p === undefined ? missing('issue') : found(p.teamId, 'issue')
}

/** The caller's role per team (none for the automation token). */
export async function rolesOf(store: Store, principal: Principal): Promise<Map<number, TeamRole>> {
  if (principal.userId === null) return new Map()
  const ms = await store.membershipsOf(principal.userId)
  return new Map(ms.map((m) => [m.teamId, m.role]))
}

/**
 * Decides one request: an object outside the caller's teams answers exactly the 404 a missing
 * object answers (the same `ApiError`, so the same status and body: no existence leak); a
 * member whose role or token scope lacks the action gets 403.
 */
export async function authorize(
  store: Store,
  access: Access,
  req: FastifyRequest,
  principal: Principal,
): Promise<void> {
  if (access.need === 'public' || access.need === 'signed-in') return
  if (access.need === 'instance:admin') {
    if (!allows(principal, undefined, 'instance:admin'))
      throw new ApiError('forbidden', 'this needs the instance admin')
    return
  }
  const roles = await rolesOf(store, principal)
  const target = await locate(store, access.on, req, principal, roles)
  if ('missing' in target) throw target.missing
  req.accessTeamId = target.teamId
  const role = roles.get(target.teamId)
  if (!principal.isAdmin && role === undefined) throw target.hidden
  if (!allows(principal, role, access.need)) {
    const had = principal.isAdmin ? 'instance admin' : `${role ?? 'no'} role`
    const scope =
      principal.via === 'token' ? ` with a token of scopes ${principal.scopes.join(', ')}` : ''
    throw new ApiError('forbidden', `this needs ${access.need}; you have the ${had}${scope}`)
  }
}

/** The principal a UI or API hook resolved, or a 401. */
export function principalOf(req: FastifyRequest): Principal {
  if (req.principal === undefined) throw new ApiError('unauthorized', 'sign in first')
  return req.principal
}

/**
 * Enforces every route's declared access with one `preHandler`, attached by an `onRoute` hook
 * to every route that is not public, so it runs for API and UI routes alike after their own
 * hooks have resolved who is calling (and after the body is parsed, for the team a project is
 * created in), and costs the public ingest routes nothing. A route without a declaration gets
 * it too and fails closed (403 and an error log line); `server/test/access-isolation.test.ts`
 * fails on one. HEAD twins of GET routes pass through `onRoute` themselves and get it as well.
 * The CORS preflight route, which `@fastify/cors` registers for us, is declared public here.
 */
export function installAccessControl(app: FastifyInstance, store: Store): void {
  const enforce = async (req: FastifyRequest): Promise<void> => {
    const access = req.routeOptions.config.access
    if (access === undefined) {
      req.log.error({ url: req.routeOptions.url }, 'route declares no access rule')
      throw new ApiError('forbidden', 'this route declares no access rule')
    }
    await authorize(store, access, req, principalOf(req))
  }
  app.addHook('onRoute', (route) => {
    if (route.method === 'OPTIONS' && route.url === '*' && route.config?.access === undefined) {
      route.config = { ...route.config, access: PUBLIC }
    }
    if (route.config?.access?.need === 'public') return
    // Before validation: a caller who may not act here learns nothing from the body's errors
    // (403/404 first, as Sentry answers), and no handler-side parsing runs for them.
    const own = route.preValidation
    route.preValidation = own === undefined ? [enforce] : [enforce, ...[own].flat()]
  })
}

/** The projects the caller may see: every one for the instance admin, else its teams'. */
export async function visibleProjects(store: Store, principal: Principal): Promise<Project[]> {
  const all = await store.listProjects()
  if (principal.isAdmin) return all
  const roles = await rolesOf(store, principal)
  return all.filter((p) => roles.has(p.teamId))
}

/** What the caller may do in a team (pages show only the links and forms it may use). */
export async function actionsIn(
  store: Store,
  principal: Principal,
  teamId: number,
): Promise<Action[]> {
  const role = (await rolesOf(store, principal)).get(teamId)
  return ACTIONS.filter((a) => allows(principal, role, a))
}
