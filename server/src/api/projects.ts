import { z } from 'zod'
import { principalOf, visibleProjects } from '../accounts/access.ts'
import { actorOf, recordAudit } from '../audit/record.ts'
import { ApiError } from '../errors.ts'
import { ON_NEW_PROJECT_TEAM, onProject, SIGNED_IN } from '../http/route-access.ts'
import { keyJson, projectJson } from '../http-kit/format.ts'
import type { ApiScope } from '../http-kit/openapi.ts'
import {
  bodyErrorResponses,
  errorResponses,
  KeyJson,
  ProjectDetailJson,
  ProjectJson,
  ProjectParams,
} from '../http-kit/schemas.ts'
import { slugify } from '../http-kit/slug.ts'
import { newPublicKey } from '../http-kit/tokens.ts'
import { pathProject } from '../http-kit/validate.ts'
import { DEFAULT_TEAM_ID } from '../store/team-types.ts'
import type { Store } from '../store/types.ts'
import { quotaJson } from './quotas.ts'

/** Body of `POST /api/0/projects/`. */
export const CreateProject = z
  .object({
    name: z.string().trim().min(1).max(100),
    team_id: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('The owning team (default: the first team the caller administers)'),
  })
  .describe('project')

/** Creates a project with its default DSN key in a team, finding a free slug. */
export async function createProject(store: Store, name: string, teamId: number) {
  const base = slugify(name)
  for (let n = 1; n < 1000; n++) {
    const slug = n === 1 ? base : `${base}-${n}`
    try {
      return await store.createProject(name, slug, newPublicKey(), teamId)
    } catch (err) {
      if (!String(err).includes('UNIQUE') && !String(err).includes('unique')) throw err
    }
  }
  throw new ApiError('conflict', 'could not find a free slug for this project name')
}

/** Project and DSN key routes of the management API. */
export async function projectRoutes(
  app: ApiScope,
  deps: { store: Store; baseUrl: () => string },
): Promise<void> {
  const { store, baseUrl } = deps
  const defaultDsn = async (projectId: number) => {
    const keys = await store.listKeys(projectId)
    const k = keys.find((x) => x.component === null && x.revokedAt === null) ?? keys[0]
    return k === undefined ? '' : keyJson(k, baseUrl()).dsn
  }

  app.post(
    '/api/0/projects/',
    {
      config: { access: ON_NEW_PROJECT_TEAM },
      schema: {
        summary: 'Create a project with a default DSN key',
        body: CreateProject,
        response: { 201: ProjectJson, ...bodyErrorResponses },
      },
    },
    async (req, reply) => {
      const { project, key } = await createProject(
        store,
        req.body.name,
        req.accessTeamId ?? DEFAULT_TEAM_ID,
      )
      await recordAudit(store, actorOf(req.principal ?? { userId: null }), 'project.create', {
        projectId: project.id,
        target: `project:${project.id}`,
        details: { name: project.name, key: key.id },
      })
      return reply.code(201).send(projectJson(project, keyJson(key, baseUrl()).dsn))
    },
  )

  app.get(
    '/api/0/projects/',
    {
      config: { access: SIGNED_IN },
      schema: {
        summary: 'List projects',
        response: { 200: z.array(ProjectJson), ...errorResponses },
      },
    },
    async (req) => {
      const projects = await visibleProjects(store, principalOf(req))
      return Promise.all(projects.map(async (p) => projectJson(p, await defaultDsn(p.id))))
    },
  )

  app.get(
    '/api/0/projects/:projectId/',
    {
      config: { access: onProject('project:read') },
      schema: {
        summary: 'One project, with its event quota (null: unlimited)',
        params: ProjectParams,
        response: { 200: ProjectDetailJson, ...errorResponses },
      },
    },
    async (req) => {
      const p = await pathProject(store, req.params.projectId)
      return {
        ...projectJson(p, await defaultDsn(p.id)),
        quota: quotaJson(await store.getQuota(p.id)),
      }
    },
  )

  app.get(
    '/api/0/projects/:projectId/keys/',
    {
      config: { access: onProject('project:read') },
      schema: {
        summary: 'DSN keys of the project, revoked ones included',
        params: ProjectParams,
        response: { 200: z.array(KeyJson), ...errorResponses },
      },
    },
    async (req) => {
      const p = await pathProject(store, req.params.projectId)
      return (await store.listKeys(p.id)).map((k) => keyJson(k, baseUrl()))
    },
  )
}
