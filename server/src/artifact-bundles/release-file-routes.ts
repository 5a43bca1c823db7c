import { createHash } from 'node:crypto'
import multipart from '@fastify/multipart'
import { z } from 'zod'
import { ApiError, notFound } from '../errors.ts'
import { onOrg } from '../http/route-access.ts'
import { type ApiScope, MULTIPART_PARTS } from '../http-kit/openapi.ts'
import { ErrorBody, errorResponses } from '../http-kit/schemas.ts'
import { teamProject } from '../http-kit/validate.ts'
import type { SourceMapResolver } from '../ingest/source-maps/resolver.ts'
import type { ReleaseFileRecord } from '../store/release-file-types.ts'
import type { Store } from '../store/types.ts'
import { BundleError } from './bundle-reader.ts'
import { ARTIFACT_LIMITS } from './limits.ts'
import { oneAtATime } from './one-at-a-time.ts'
import { MAX_RELEASE_FILE_NAME, readReleaseFile } from './release-file-reader.ts'

const OrgParams = z.object({ org: z.string().min(1).max(100) })
const Version = z.string().min(1).max(200)
const OrgVersion = OrgParams.extend({ version: Version })
const ProjectVersion = OrgVersion.extend({ project: z.string().min(1).max(100) })
const FileId = z.string().regex(/^[0-9]{1,15}$/, 'a file id')

/** Headers one file may carry (`--file-header`), and the longest `Key:Value` of one. */
const MAX_HEADERS = 32
const MAX_FIELD = 4096
/** Largest page of `list`; sentry-cli asks without `per_page` and follows the cursor. */
const PAGE = 100
const MAX_PAGE = 1000

const FileJson = z
  .object({
    id: z.string(),
    name: z.string(),
    dist: z.string().nullable(),
    headers: z.record(z.string(), z.string()),
    size: z.number().int(),
    sha1: z.string(),
    dateCreated: z.string(),
  })
  .meta({ id: 'ReleaseFile' })

const ListQuery = z.object({
  cursor: z.string().max(64).optional(),
  per_page: z.coerce.number().int().min(1).max(MAX_PAGE).default(PAGE),
})

const fileJson = (f: ReleaseFileRecord): z.infer<typeof FileJson> => ({
  id: String(f.id),
  name: f.name,
  dist: f.dist === '' ? null : f.dist,
  headers: f.headers,
  size: f.size,
  sha1: f.sha1,
  dateCreated: new Date(f.createdAt).toISOString(),
})

/**
 * The offset a list cursor names. Sentry's cursors are `value:offset:is_prev`; this API writes
 * `0:<offset>:0` and reads any `<n>:<offset>:0`. Anything else is a 400, which sentry-cli
 * takes, after a first page, as the end of the list.
 */
function offsetOf(cursor: string | undefined): number {
  if (cursor === undefined || cursor === '') return 0
  const m = /^\d{1,15}:(\d{1,9}):0$/.exec(cursor)
  if (m === null) throw new ApiError('bad_request', 'not a cursor of this list')
  return Number(m[1])
}

/** A `Link` header as Sentry writes it, which sentry-cli follows while `results="true"`. */
function linkHeader(url: string, offset: number, size: number, more: boolean): string {
  const base = url.split('?')[0] ?? url
  const prev = Math.max(0, offset - size)
  return [
    `<${base}?cursor=0:${prev}:1>; rel="previous"; results="${offset > 0}"; cursor="0:${prev}:1"`,
    `<${base}?cursor=0:${offset + size}:0>; rel="next"; results="${more}"; cursor="0:${offset + size}:0"`,
  ].join(', ')
}

/** `Key:Value` as sentry-cli sends a `header` field; the key and value trimmed. */
function parseHeader(field: string): [string, string] {
  const at = field.indexOf(':')
  const key = at < 0 ? '' : field.slice(0, at).trim()
  if (key === '' || /[\r\n]/.test(field)) {
    throw new ApiError('bad_request', 'header must be a "Key: Value" line')
  }
  return [key, field.slice(at + 1).trim()]
}

/** Multipart limits and framing errors as the catalogue's answers (never a 500). */
function asApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err
  const code = (err as { code?: string }).code ?? ''
  const status = (err as { statusCode?: number }).statusCode
  if (code === 'FST_REQ_FILE_TOO_LARGE' || status === 413) {
    return new ApiError(
      'too_large',
      `a release file may have at most ${ARTIFACT_LIMITS.maxFileBytes} bytes`,
    )
  }
  if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') {
    return new ApiError('bad_request', `send one file and at most ${MAX_HEADERS} headers`)
  }
  return new ApiError('bad_request', `malformed multipart body (${(err as Error).message})`)
}

/**
 * The legacy release-file API of sentry-cli 2.x (`releases files <version> upload|list|delete`,
 * `delete --all`; docs/source-maps.md "Release files"), in its project form
 * (`/projects/{org}/{project}/…`) and its organization form (`/organizations/{org}/…`). `{org}`
 * is the team's slug; reading needs `project:read` there, writing `project:admin`, as for the
 * artifact-bundle routes. A file belongs to a recorded release of the team (Sentry's rule: an
 * unknown release is a 404); it is stored as a one-file artifact bundle linked to the
 * release's projects for its release and dist, so events of that release resolve through it.
 */
export async function releaseFileRoutes(
  app: ApiScope,
  deps: { store: Store; sourceMaps: SourceMapResolver },
): Promise<void> {
  const { store, sourceMaps } = deps

  /** The team's release the path names: in the project form it must ship that project. */
  async function releaseOf(teamId: number | undefined, p: { version: string; project?: string }) {
    if (teamId === undefined) throw notFound('organization')
    const projectId =
      p.project === undefined ? undefined : (await teamProject(store, teamId, p.project)).id
    const release = await store.getRelease(teamId, p.version)
    if (release === undefined) throw notFound('release')
    if (projectId !== undefined && !release.projects.some((x) => x.id === projectId)) {
      throw notFound('release')
    }
    return { teamId, release }
  }

  for (const prefix of ['organizations/:org', 'projects/:org/:project'] as const) {
    const byProject = prefix !== 'organizations/:org'
    const params = byProject ? ProjectVersion : OrgVersion
    const withId = params.extend({ fileId: FileId })
    const where = byProject ? 'a release of the project' : 'a release of the team'
    const files = `/api/0/${prefix}/releases/:version/files/`

    await app.register(async (scope: ApiScope) => {
      await scope.register(multipart, {
        limits: {
          files: 1,
          fileSize: ARTIFACT_LIMITS.maxFileBytes,
          fields: MAX_HEADERS + 4,
          fieldSize: MAX_FIELD,
          parts: MAX_HEADERS + 5,
          headerPairs: 100,
        },
      })
      scope.post(
        files,
        {
          config: { access: onOrg('project:admin') },
          bodyLimit: ARTIFACT_LIMITS.maxFileBytes + 1024 * 1024,
          schema: {
            summary: `Upload one file to ${where} (sentry-cli 2.x \`releases files <v> upload\`): multipart \`file\`, \`name\`, \`dist\`, \`header\` (\`Key:Value\`, repeated); 409 when the name and dist are taken`,
            consumes: ['multipart/form-data'],
            [MULTIPART_PARTS]: ['file'],
            params,
            response: {
              201: FileJson,
              ...errorResponses,
              409: ErrorBody.describe('The release has a file of that name and dist'),
              413: ErrorBody.describe('The file too large'),
              415: ErrorBody.describe('Not multipart/form-data'),
            },
          },
        },
        async (req, reply) => {
          const { teamId, release } = await releaseOf(req.accessTeamId, req.params)
          if (!req.isMultipart()) {
            throw new ApiError('unsupported_media_type', 'send the file as multipart/form-data')
          }
          let bytes: Buffer | undefined
          let filename = ''
          let name: string | undefined
          let dist = ''
          // No prototype: a header named `__proto__` is a header like any other.
          const headers: Record<string, string> = Object.create(null)
          try {
            for await (const part of req.parts()) {
              if (part.type === 'file') {
                if (part.fieldname !== 'file' || bytes !== undefined) {
                  part.file.resume()
                  throw new ApiError('bad_request', 'send one file, in the part named "file"')
                }
                filename = part.filename
                bytes = await part.toBuffer()
                continue
              }
              if (part.valueTruncated) {
                throw new ApiError('bad_request', `${part.fieldname}: over ${MAX_FIELD} bytes`)
              }
              const value = typeof part.value === 'string' ? part.value : String(part.value)
              if (part.fieldname === 'name') name = value
              else if (part.fieldname === 'dist') dist = value
              else if (part.fieldname === 'header') {
                const [k, v] = parseHeader(value)
                headers[k] = v
              }
            }
          } catch (err) {
            throw asApiError(err)
          }
          if (bytes === undefined) throw new ApiError('bad_request', 'Missing uploaded file')
          // Sentry's default: the uploaded file's own name.
          const fileName = (name ?? filename).trim()
          if (fileName === '' || fileName.length > MAX_RELEASE_FILE_NAME) {
            throw new ApiError(
              'bad_request',
              `name the file (1 to ${MAX_RELEASE_FILE_NAME} characters)`,
            )
          }
          if (dist.length > 64 || /[\r\n\t/\\]/.test(dist)) {
            throw new ApiError('bad_request', 'dist: at most 64 characters, no "/" or "\\"')
          }
          const projectIds = release.projects.map((p) => p.id)
          const body = bytes
          // Checked, hashed and deflated one upload at a time per node, as assembles are.
          const stored = await oneAtATime(async () => {
            let file: ReturnType<typeof readReleaseFile>
            try {
              file = readReleaseFile(fileName, body, headers)
            } catch (err) {
              if (err instanceof BundleError) throw new ApiError('bad_request', err.message)
              throw err
            }
            return store.storeReleaseFile(
              {
                teamId,
                release: release.version,
                dist,
                name: fileName,
                headers,
                sha1: createHash('sha1').update(body).digest('hex'),
                file,
                projectIds,
              },
              Date.now(),
            )
          })
          if (stored === undefined) {
            throw new ApiError(
              'conflict',
              'A file matching this name already exists for the given release',
            )
          }
          sourceMaps.noteUpload(projectIds)
          return reply.code(201).send(fileJson(stored))
        },
      )
    })

    app.get(
      files,
      {
        config: { access: onOrg('project:read') },
        schema: {
          summary: `The files of ${where} by name (sentry-cli 2.x \`releases files <v> list\`), paged by \`cursor\` and the \`Link\` header`,
          params,
          querystring: ListQuery,
          response: { 200: z.array(FileJson), ...errorResponses },
        },
      },
      async (req, reply) => {
        const { teamId, release } = await releaseOf(req.accessTeamId, req.params)
        const offset = offsetOf(req.query.cursor)
        const size = req.query.per_page
        const page = await store.listReleaseFiles(teamId, release.version, offset, size + 1)
        const more = page.length > size
        void reply.header('link', linkHeader(req.url, offset, size, more))
        return page.slice(0, size).map(fileJson)
      },
    )

    app.get(
      `${files}:fileId/`,
      {
        config: { access: onOrg('project:read') },
        schema: {
          summary: `One file of ${where} (its metadata; downloading its bytes is not offered)`,
          params: withId,
          response: { 200: FileJson, ...errorResponses },
        },
      },
      async (req) => {
        const { teamId, release } = await releaseOf(req.accessTeamId, req.params)
        const id = Number(req.params.fileId)
        const f = await store.getReleaseFile(teamId, release.version, id)
        if (f === undefined) throw notFound('file')
        return fileJson(f)
      },
    )

    app.delete(
      `${files}:fileId/`,
      {
        config: { access: onOrg('project:admin') },
        schema: {
          summary: `Delete one file of ${where} (sentry-cli 2.x \`releases files <v> delete <name>\`)`,
          params: withId,
          response: { 204: z.null().describe('Deleted'), ...errorResponses },
        },
      },
      async (req, reply) => {
        const { teamId, release } = await releaseOf(req.accessTeamId, req.params)
        const gone = await store.deleteReleaseFile(
          teamId,
          release.version,
          Number(req.params.fileId),
        )
        if (!gone) throw notFound('file')
        sourceMaps.noteRemoval(release.projects.map((p) => p.id))
        return reply.code(204).send(null)
      },
    )

    app.delete(
      `/api/0/${prefix}/files/source-maps/`,
      {
        config: { access: onOrg('project:admin') },
        schema: {
          summary: `Delete every release file of the release \`name\` of ${byProject ? 'the project' : 'the team'} (sentry-cli 2.x \`releases files <v> delete --all\`); artifact bundles uploaded with \`--release\` stay`,
          params: byProject ? ProjectVersion.omit({ version: true }) : OrgParams,
          querystring: z.object({ name: Version }),
          response: { 204: z.null().describe('Deleted'), ...errorResponses },
        },
      },
      async (req, reply) => {
        const { teamId, release } = await releaseOf(req.accessTeamId, {
          ...req.params,
          version: req.query.name,
        })
        await store.deleteReleaseFiles(teamId, release.version)
        sourceMaps.noteRemoval(release.projects.map((p) => p.id))
        return reply.code(204).send(null)
      },
    )
  }
}
