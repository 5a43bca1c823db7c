import type { FastifyRequest } from 'fastify'
import { actionsIn, visibleProjects } from '../accounts/access.ts'
import { ApiError, notFound } from '../errors.ts'
import { ACTIONS, allows } from '../http/permissions.ts'
import type { Principal } from '../http-kit/principal.ts'
import type { Services } from '../services.ts'
import type { Project } from '../store/types.ts'
import type { PageContext, Section } from './layout.ts'
import type { LoginThrottle } from './login-throttle.ts'
import type { ActiveSession } from './session-auth.ts'

/** Who is using the UI on this request (resolved by the UI's onRequest hook). */
export interface UiViewer {
  /** null for the `INGEST_ADMIN_TOKEN` automation token. */
  userId: number | null
  label: string
  isAdmin: boolean
  /** Present when signed in through the browser (cookie); absent for bearer tokens. */
  session?: ActiveSession
  /** The same caller as the API sees it: what the access hook decides on. */
  principal: Principal
}

declare module 'fastify' {
  interface FastifyRequest {
    ui?: UiViewer
  }
}

/** What UI route modules get. */
export interface UiDeps {
  services: Services
  throttle: LoginThrottle
}

/** The viewer of an authenticated UI request. */
export function viewerOf(req: FastifyRequest): UiViewer {
  if (req.ui === undefined) throw new ApiError('unauthorized', 'sign in first')
  return req.ui
}

/** The frame data for a page of `section` (optionally inside a project). */
export async function pageContext(
  deps: UiDeps,
  req: FastifyRequest,
  section: Section,
  project?: Project,
): Promise<PageContext> {
  const viewer = viewerOf(req)
  const { store } = deps.services
  return {
    who: viewer.label,
    csrf: viewer.session?.csrfToken ?? '',
    session: viewer.session !== undefined,
    admin: viewer.isAdmin,
    projects: await visibleProjects(store, viewer.principal),
    project,
    section,
    can:
      project === undefined
        ? ACTIONS.filter((a) => allows(viewer.principal, undefined, a))
        : await actionsIn(store, viewer.principal, project.teamId),
  }
}

/** Reads a numeric path parameter and loads the project, 404 when there is none. */
export async function projectParam(deps: UiDeps, params: unknown): Promise<Project> {
  const raw = (params as Record<string, string | undefined>)['projectId'] ?? ''
  const id = /^\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN
  const project = Number.isSafeInteger(id) ? await deps.services.store.getProject(id) : undefined
  if (project === undefined) throw notFound('project')
  return project
}
