import { z } from 'zod'
import { ApiError, notFound } from '../errors.ts'
import { onOrg } from '../http/route-access.ts'
import type { ApiScope } from '../http-kit/openapi.ts'
import { bodyErrorResponses, errorResponses } from '../http-kit/schemas.ts'
import { teamProject, teamProjects } from '../http-kit/validate.ts'
import type { SourceMapResolver } from '../ingest/source-maps/resolver.ts'
import type { Deploy, ReleaseChanges, ReleaseRecord } from '../store/release-types.ts'
import type { Store } from '../store/types.ts'

// Sentry's longest release version (its release API's `MAX_VERSION_LENGTH`); the router takes
// path parameters up to `MAX_PATH_PARAM` (256), so every version created can be read back.
const VERSION_MAX = 200

/**
 * A release version as Sentry accepts one: not blank, not `.`, `..` or `latest`, and none of
 * the characters that break its use in a URL path or a header (newlines, tab, form feed, `/`,
 * `\`).
 */
const Version = z
  .string()
  .min(1)
  .max(VERSION_MAX)
  .refine((v) => !/[\r\n\f\t/\\]/.test(v), 'no line breaks, tabs, "/" or "\\"')
  .refine((v) => !['', '.', '..', 'latest'].includes(v.trim().toLowerCase()), 'not a version')

const OrgParams = z.object({ org: z.string().min(1).max(100) })
const VersionParams = OrgParams.extend({ version: Version })
const OrgProjectParams = OrgParams.extend({ project: z.string().min(1).max(100) })

/** An ISO 8601 time as sentry-cli sends it (RFC 3339, nanoseconds allowed), or null. */
const Time = z
  .string()
  .max(64)
  .refine((v) => Number.isFinite(Date.parse(v)), 'an ISO 8601 time')
  .nullable()

/** A commit as `set-commits` sends it (local mode); only its id is kept. */
const Commit = z.looseObject({ id: z.string().min(1).max(64) })
/** A repository ref (`repository`, `commit`, `previousCommit`); only the commit is kept. */
const Ref = z.looseObject({
  repository: z.string().max(200).optional(),
  commit: z.string().min(1).max(64),
  previousCommit: z.string().max(64).nullable().optional(),
})

const ProjectRefs = z.array(z.union([z.string().min(1).max(100), z.number().int()])).max(100)

const ReleaseFields = {
  projects: ProjectRefs.optional(),
  url: z.string().max(2048).nullable().optional(),
  dateStarted: Time.optional(),
  dateReleased: Time.optional(),
  refs: z.array(Ref).max(100).optional(),
  commits: z.array(Commit).max(10_000).optional(),
  status: z.enum(['open', 'archived']).optional(),
}

const NewRelease = z
  .looseObject({ version: Version, ...ReleaseFields })
  .describe('release to create (sentry-cli `releases new`)')
const ReleaseUpdate = z
  .looseObject(ReleaseFields)
  .describe('release changes (`releases finalize`, `set-commits`, `archive`, `restore`)')

const Environment = z
  .string()
  .min(1)
  .max(64)
  .refine((v) => !/[\r\n\f\t/]/.test(v), 'no line breaks, tabs or "/"')

const NewDeploy = z
  .looseObject({
    environment: Environment,
    name: z.string().max(200).nullable().optional(),
    url: z.string().max(2048).nullable().optional(),
    dateStarted: Time.optional(),
    dateFinished: Time.optional(),
    projects: ProjectRefs.optional(),
  })
  .describe('deploy (sentry-cli `deploys new`)')

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

const DeployJson = z
  .object({
    id: z.string(),
    environment: z.string(),
    name: z.string().nullable(),
    url: z.string().nullable(),
    dateStarted: z.string().nullable(),
    dateFinished: z.string(),
  })
  .meta({ id: 'Deploy' })

const ReleaseJson = z
  .object({
    id: z.number().int(),
    version: z.string(),
    shortVersion: z.string(),
    url: z.string().nullable(),
    status: z.enum(['open', 'archived']),
    dateCreated: z.string(),
    dateStarted: z.string().nullable(),
    dateReleased: z.string().nullable(),
    commitCount: z.number().int(),
    lastCommit: z.object({ id: z.string() }).nullable(),
    deployCount: z.number().int(),
    lastDeploy: DeployJson.nullable(),
    projects: z.array(z.object({ id: z.number().int(), slug: z.string(), name: z.string() })),
  })
  .meta({ id: 'Release' })

const deployJson = (d: Deploy): z.infer<typeof DeployJson> => ({
  id: String(d.id),
  environment: d.environment,
  name: d.name,
  url: d.url,
  dateStarted: iso(d.dateStarted),
  dateFinished: iso(d.dateFinished) ?? '',
})

/**
 * A release's short name, as Sentry shows it: the version after a `package@`, and a commit
 * SHA (what the bundler plugins name a release by default) cut to 12 characters.
 */
export function shortVersion(version: string): string {
  const v = version.slice(version.lastIndexOf('@') + 1) || version
  return /^[0-9a-f]{40}$/i.test(v) ? v.slice(0, 12) : v
}

const releaseJson = (r: ReleaseRecord): z.infer<typeof ReleaseJson> => ({
  id: r.id,
  version: r.version,
  shortVersion: shortVersion(r.version),
  url: r.url,
  status: r.status,
  dateCreated: iso(r.dateCreated) ?? '',
  dateStarted: iso(r.dateStarted),
  dateReleased: iso(r.dateReleased),
  commitCount: r.commitCount,
  lastCommit: r.lastCommit === null ? null : { id: r.lastCommit },
  deployCount: r.deployCount,
  lastDeploy: r.lastDeploy === null ? null : deployJson(r.lastDeploy),
  projects: r.projects,
})

const ms = (v: string | null | undefined) =>
  v === undefined ? undefined : v === null ? null : Date.parse(v)

const teamOf = (teamId: number | undefined): number => {
  if (teamId === undefined) throw notFound('organization')
  return teamId
}

/**
 * Releases and deploys as sentry-cli (2.x, 3.x), the `sentry` CLI and the bundler plugins
 * manage them (`releases new|finalize|set-commits|archive|restore|delete|list|info`,
 * `deploys new|list`; docs/api.md "Releases and deploys"). `{org}` is the slug of the team;
 * writing needs `project:admin` there, as uploading source maps does. There are no repository
 * integrations, so `repos` is empty and `set-commits` records the commits of the local checkout.
 */
export async function orgReleaseRoutes(
  app: ApiScope,
  deps: { store: Store; sourceMaps: SourceMapResolver },
): Promise<void> {
  const { store, sourceMaps } = deps

  /** The team's projects that `refs` name (by slug or id); a name of none is a 404. */
  async function projectIds(teamId: number, refs: readonly (string | number)[] | undefined) {
    if (refs === undefined) return undefined
    const own = await teamProjects(store, teamId)
    return refs.map((ref) => {
      const p = own.find((x) => (typeof ref === 'number' ? x.id === ref : x.slug === ref))
      // As a missing object, whether another team's or none (the name is not echoed).
      if (p === undefined) throw notFound('project')
      return p.id
    })
  }

  async function changesOf(
    teamId: number,
    b: z.infer<typeof ReleaseUpdate>,
  ): Promise<ReleaseChanges> {
    const commits =
      b.commits !== undefined
        ? { count: b.commits.length, last: b.commits[0]?.id ?? null }
        : b.refs !== undefined
          ? { count: b.refs.length, last: b.refs.at(-1)?.commit ?? null }
          : undefined
    return {
      url: b.url,
      dateStarted: ms(b.dateStarted),
      dateReleased: ms(b.dateReleased),
      status: b.status,
      commits,
      projectIds: await projectIds(teamId, b.projects),
    }
  }

  /**
   * Creates a release (201) or changes the one of that version (208, Sentry's answer: sentry-cli
   * 2 archives and restores this way too). A new release needs a project; `projectId` is the
   * project of a project-bound path.
   */
  async function create(
    teamId: number,
    body: z.infer<typeof NewRelease>,
    projectId: number | undefined,
  ) {
    const changes = await changesOf(teamId, body)
    if (projectId !== undefined) changes.projectIds = [...(changes.projectIds ?? []), projectId]
    if ((changes.projectIds ?? []).length === 0) {
      const known = await store.getRelease(teamId, body.version)
      if (known === undefined) {
        throw new ApiError('bad_request', 'name the projects of the release (projects)')
      }
    }
    const done = await store.upsertRelease(teamId, body.version, changes, Date.now())
    projectsAdded(changes)
    return done
  }

  /**
   * Projects added to a release now resolve through its release files (the store links them):
   * this node forgets what it cached as "no map" for them.
   */
  function projectsAdded(changes: ReleaseChanges): void {
    if ((changes.projectIds ?? []).length > 0) sourceMaps.noteUpload(changes.projectIds ?? [])
  }

  /** The team's release, if recorded (and shipping `projectId` on a project-bound path). */
  async function found(teamId: number, version: string, projectId: number | undefined) {
    const r = await store.getRelease(teamId, version)
    if (r === undefined || (projectId !== undefined && !r.projects.some((p) => p.id === projectId)))
      throw notFound('release')
    return r
  }

  for (const path of ['organizations/:org', 'projects/:org/:project'] as const) {
    const byProject = path !== 'organizations/:org'
    const params = byProject ? OrgProjectParams : OrgParams
    const withVersion = byProject ? OrgProjectParams.extend({ version: Version }) : VersionParams
    const projectOf = async (teamId: number, p: object) =>
      'project' in p && typeof p.project === 'string'
        ? (await teamProject(store, teamId, p.project)).id
        : undefined
    const where = byProject
      ? 'a project of the team (sentry-cli 2)'
      : 'the team (`org` is its slug)'

    app.post(
      `/api/0/${path}/releases/`,
      {
        config: { access: onOrg('project:admin') },
        schema: {
          summary: `Create a release of ${where}: 201, or 208 with the release when the version exists (projects, dates and status are added)`,
          params,
          body: NewRelease,
          response: { 201: ReleaseJson, 208: ReleaseJson, ...bodyErrorResponses },
        },
      },
      async (req, reply) => {
        const teamId = teamOf(req.accessTeamId)
        const projectId = await projectOf(teamId, req.params)
        const { release, created } = await create(teamId, req.body, projectId)
        return reply.code(created ? 201 : 208).send(releaseJson(release))
      },
    )

    app.get(
      `/api/0/${path}/releases/:version/`,
      {
        config: { access: onOrg('project:read') },
        schema: {
          summary: `One release of ${where} (\`releases info\`)`,
          params: withVersion,
          response: { 200: ReleaseJson, ...errorResponses },
        },
      },
      async (req) => {
        const teamId = teamOf(req.accessTeamId)
        const projectId = await projectOf(teamId, req.params)
        return releaseJson(await found(teamId, req.params.version, projectId))
      },
    )

    app.put(
      `/api/0/${path}/releases/:version/`,
      {
        config: { access: onOrg('project:admin') },
        schema: {
          summary: `Change a release of ${where}: \`dateReleased\` (\`finalize\`), \`commits\` or \`refs\` (\`set-commits\`), \`status\`, \`url\`, more \`projects\``,
          params: withVersion,
          body: ReleaseUpdate,
          response: { 200: ReleaseJson, ...bodyErrorResponses },
        },
      },
      async (req) => {
        const teamId = teamOf(req.accessTeamId)
        const projectId = await projectOf(teamId, req.params)
        // A project-bound path reaches only a release shipping that project.
        if (projectId !== undefined) await found(teamId, req.params.version, projectId)
        const changes = await changesOf(teamId, req.body)
        const r = await store.updateRelease(teamId, req.params.version, changes)
        if (r === undefined) throw notFound('release')
        projectsAdded(changes)
        return releaseJson(r)
      },
    )

    app.delete(
      `/api/0/${path}/releases/:version/`,
      {
        config: { access: onOrg('project:admin') },
        schema: {
          summary: `Remove a release record of ${where}, its deploys and its release files (events keep their release)`,
          params: withVersion,
          response: { 204: z.null().describe('Removed'), ...errorResponses },
        },
      },
      async (req, reply) => {
        const teamId = teamOf(req.accessTeamId)
        const projectId = await projectOf(teamId, req.params)
        const shipped = (await found(teamId, req.params.version, projectId)).projects
        if (!(await store.deleteRelease(teamId, req.params.version))) throw notFound('release')
        // Its release files went with it.
        sourceMaps.noteRemoval(shipped.map((p) => p.id))
        return reply.code(204).send(null)
      },
    )
  }

  app.get(
    '/api/0/organizations/:org/releases/',
    {
      config: { access: onOrg('project:read') },
      schema: {
        summary: "The team's releases, newest first (`project`: only those of that slug or id)",
        params: OrgParams,
        querystring: z
          .object({
            project: z.string().max(100).optional(),
            per_page: z.coerce.number().int().min(1).max(1000).default(100),
          })
          .describe('query'),
        response: { 200: z.array(ReleaseJson), ...errorResponses },
      },
    },
    async (req) => {
      const teamId = teamOf(req.accessTeamId)
      const p = req.query.project
      const own = await teamProjects(store, teamId)
      const project =
        p === undefined ? undefined : own.find((x) => x.slug === p || String(x.id) === p)
      if (p !== undefined && project === undefined) throw notFound('project')
      return (await store.listReleases(teamId, project?.id, req.query.per_page)).map(releaseJson)
    },
  )

  app.get(
    '/api/0/projects/:org/:project/releases/',
    {
      config: { access: onOrg('project:read') },
      schema: {
        summary: "A project's releases, newest first (`org` the team slug, `project` the slug)",
        params: OrgProjectParams,
        response: { 200: z.array(ReleaseJson), ...errorResponses },
      },
    },
    async (req) => {
      const teamId = teamOf(req.accessTeamId)
      const projectId = (await teamProject(store, teamId, req.params.project)).id
      return (await store.listReleases(teamId, projectId, 100)).map(releaseJson)
    },
  )

  app.post(
    '/api/0/organizations/:org/releases/:version/deploys/',
    {
      config: { access: onOrg('project:admin') },
      schema: {
        summary: 'Record a deploy of a release to an environment (`deploys new`)',
        params: VersionParams,
        body: NewDeploy,
        response: { 201: DeployJson, ...bodyErrorResponses },
      },
    },
    async (req, reply) => {
      const teamId = teamOf(req.accessTeamId)
      const b = req.body
      await projectIds(teamId, b.projects)
      const now = Date.now()
      const d = await store.addDeploy(teamId, req.params.version, {
        environment: b.environment,
        name: b.name ?? null,
        url: b.url ?? null,
        dateStarted: ms(b.dateStarted) ?? null,
        dateFinished: ms(b.dateFinished) ?? now,
      })
      if (d === undefined) throw notFound('release')
      return reply.code(201).send(deployJson(d))
    },
  )

  app.get(
    '/api/0/organizations/:org/releases/:version/deploys/',
    {
      config: { access: onOrg('project:read') },
      schema: {
        summary: "A release's deploys, newest first (`deploys list`)",
        params: VersionParams,
        response: { 200: z.array(DeployJson), ...errorResponses },
      },
    },
    async (req) => {
      const list = await store.listDeploys(teamOf(req.accessTeamId), req.params.version)
      if (list === undefined) throw notFound('release')
      return list.map(deployJson)
    },
  )

  app.get(
    '/api/0/organizations/:org/releases/:version/previous-with-commits/',
    {
      config: { access: onOrg('project:read') },
      schema: {
        summary:
          'The newest earlier release with commits (`set-commits` starts after its last commit); `{}` when there is none, 404 for an unknown version',
        params: VersionParams,
        response: { 200: z.union([ReleaseJson, z.object({})]), ...errorResponses },
      },
    },
    async (req) => {
      const teamId = teamOf(req.accessTeamId)
      await found(teamId, req.params.version, undefined)
      const r = await store.previousReleaseWithCommits(teamId, req.params.version)
      return r === undefined ? {} : releaseJson(r)
    },
  )

  app.get(
    '/api/0/organizations/:org/repos/',
    {
      config: { access: onOrg('project:read') },
      schema: {
        summary:
          'Repository integrations of the team: always none (so `set-commits` reads the local checkout)',
        params: OrgParams,
        response: {
          200: z.array(z.object({ id: z.string(), name: z.string() })),
          ...errorResponses,
        },
      },
    },
    async (req) => {
      teamOf(req.accessTeamId)
      return []
    },
  )
}
