import { createHash } from 'node:crypto'
import { gunzipSync } from 'node:zlib'
import multipart from '@fastify/multipart'
import { z } from 'zod'
import { principalOf } from '../accounts/access.ts'
import { ApiError, notFound } from '../errors.ts'
import { onOrg, SIGNED_IN } from '../http/route-access.ts'
import { type ApiScope, MULTIPART_PARTS } from '../http-kit/openapi.ts'
import { ErrorBody, errorResponses } from '../http-kit/schemas.ts'
import { teamProjects } from '../http-kit/validate.ts'
import type { SourceMapResolver } from '../ingest/source-maps/resolver.ts'
import type { Store } from '../store/types.ts'
import { BundleError, type ReadBundle, readArtifactBundle } from './bundle-reader.ts'
import { ARTIFACT_LIMITS } from './limits.ts'
import { oneAtATime } from './one-at-a-time.ts'

const SHA1 = /^[0-9a-f]{40}$/

const OrgParams = z.object({ org: z.string().min(1).max(100) })

const ApiRoot = z.object({
  version: z.string(),
  auth: z.object({ scopes: z.array(z.string()) }).nullable(),
  user: z.object({ id: z.string(), email: z.string(), username: z.string() }).nullable(),
})

const ChunkOptions = z
  .object({
    url: z.string(),
    chunkSize: z.number().int(),
    chunksPerRequest: z.number().int(),
    maxRequestSize: z.number().int(),
    maxFileSize: z.number().int(),
    maxWait: z.number().int(),
    hashAlgorithm: z.literal('sha1'),
    concurrency: z.number().int(),
    compression: z.array(z.string()),
    accept: z.array(z.string()),
  })
  .meta({ id: 'ChunkUploadOptions' })

const AssembleBody = z
  .object({
    checksum: z.string().toLowerCase().regex(SHA1, 'a sha1 in hex'),
    chunks: z
      .array(z.string().toLowerCase().regex(SHA1, 'a sha1 in hex'))
      .max(ARTIFACT_LIMITS.maxChunks),
    projects: z.array(z.string().max(100)).max(ARTIFACT_LIMITS.maxProjects).optional(),
    version: z.string().max(200).optional(),
    dist: z.string().max(64).optional(),
  })
  .describe('assemble request')

const AssembleAnswer = z
  .object({
    state: z.enum(['ok', 'created', 'assembling', 'not_found', 'error']),
    missingChunks: z.array(z.string()),
    detail: z.string().optional(),
  })
  .meta({ id: 'AssembleState' })

/** What a token scope lets sentry-cli do, in Sentry's scope names (shown by `sentry-cli info`). */
const SENTRY_SCOPES = {
  read: ['org:read', 'project:read', 'event:read'],
  write: ['project:write', 'event:write'],
  admin: ['project:admin', 'project:releases', 'org:ci'],
} as const

/**
 * Where the chunks go, as the client can use it. Stock sentry-cli (the Rust CLI, 1.70.1 and
 * later) joins a relative URL onto its own `--url`, so it gets the path: a server behind a
 * proxy or reached under another name is never sent a wrong host (Bugsink #262). Every other
 * client, such as the JavaScript `sentry` CLI that the bundler plugins (@sentry/nextjs 11) run,
 * may fetch the URL as given, so it gets it absolute: under `PUBLIC_URL` when set, else under
 * the host the request was sent to. Sentry decides the same way by the `User-Agent`.
 */
export function chunkUploadUrl(path: string, userAgent: string | undefined, origin: string) {
  const m = /^sentry-cli\/(\d+)\.(\d+)\.(\d+)/.exec(userAgent ?? '')
  const v = m === null ? [0, 0, 0] : [Number(m[1]), Number(m[2]), Number(m[3])]
  const joinsRelative = (v[0] ?? 0) * 1e6 + (v[1] ?? 0) * 1e3 + (v[2] ?? 0) >= 1_070_001
  return joinsRelative ? path : `${origin.replace(/\/+$/, '')}${path}`
}

/**
 * The upload surface of stock sentry-cli 2.x/3.x and the bundler plugins built on it
 * (docs/source-maps.md): the token check, chunk-upload options and chunks, and the artifact
 * bundle assemble call with the missing-chunks protocol both CLI versions follow. `{org}` is
 * the slug of the team owning the project; uploading needs `project:admin` there.
 */
export async function artifactRoutes(
  app: ApiScope,
  deps: { store: Store; sourceMaps: SourceMapResolver; publicUrl?: string | undefined },
): Promise<void> {
  const { store, sourceMaps } = deps

  app.get(
    '/api/0/',
    {
      config: { access: SIGNED_IN },
      schema: {
        summary: 'Token check (sentry-cli `info` and `login`): the caller and its scopes',
        response: { 200: ApiRoot, ...errorResponses },
      },
    },
    async (req) => {
      const p = principalOf(req)
      const scopes = p.scopes.flatMap((s) => SENTRY_SCOPES[s])
      const user = p.userId === null ? undefined : await store.getUser(p.userId)
      return {
        version: '0',
        auth: { scopes },
        user:
          user === undefined
            ? null
            : { id: String(user.id), email: user.email, username: user.email },
      }
    },
  )

  app.get(
    '/api/0/organizations/:org/chunk-upload/',
    {
      config: { access: onOrg('project:admin') },
      schema: {
        summary:
          'Chunk-upload options for sentry-cli (`org` is the team slug); the upload URL is relative',
        params: OrgParams,
        response: { 200: ChunkOptions, ...errorResponses },
      },
    },
    async (req) => ({
      url: chunkUploadUrl(
        `/api/0/organizations/${encodeURIComponent(req.params.org)}/chunk-upload/`,
        req.headers['user-agent'],
        deps.publicUrl ?? `${req.protocol}://${req.host}`,
      ),
      chunkSize: ARTIFACT_LIMITS.chunkSize,
      chunksPerRequest: ARTIFACT_LIMITS.chunksPerRequest,
      maxRequestSize: ARTIFACT_LIMITS.maxRequestSize,
      maxFileSize: ARTIFACT_LIMITS.maxBundleSize,
      maxWait: 60,
      hashAlgorithm: 'sha1' as const,
      concurrency: 1,
      compression: ['gzip'],
      // `artifact_bundles` keeps sentry-cli 2.x on bundles (not legacy release files) and
      // `artifact_bundles_v2` makes it ask assemble for the missing chunks first, as 3.x (which
      // no longer reads the list) always does: a bundle the server has is not sent again.
      accept: ['release_files', 'sources', 'artifact_bundles', 'artifact_bundles_v2'],
    }),
  )

  await app.register(async (scope: ApiScope) => {
    await scope.register(multipart, {
      limits: {
        files: ARTIFACT_LIMITS.chunksPerRequest,
        // A gzip part of incompressible bytes is a little larger than the chunk.
        fileSize: ARTIFACT_LIMITS.chunkSize + 64 * 1024,
        fields: 16,
        fieldSize: 1024,
        parts: ARTIFACT_LIMITS.chunksPerRequest + 16,
        headerPairs: 100,
      },
    })
    scope.post(
      '/api/0/organizations/:org/chunk-upload/',
      {
        config: { access: onOrg('project:admin') },
        bodyLimit: ARTIFACT_LIMITS.maxRequestSize + 1024 * 1024,
        schema: {
          summary:
            'Upload chunks of an artifact bundle (multipart: parts `file` or `file_gzip`, each named by the sha1 of its uncompressed bytes)',
          consumes: ['multipart/form-data'],
          [MULTIPART_PARTS]: ['file', 'file_gzip'],
          params: OrgParams,
          response: {
            200: z.object({ stored: z.number().int() }),
            ...errorResponses,
            413: ErrorBody.describe('A chunk or the request too large'),
            415: ErrorBody.describe('Not multipart/form-data'),
          },
        },
      },
      async (req) => {
        const teamId = req.accessTeamId
        if (teamId === undefined) throw new ApiError('not_found', 'no such organization')
        const length = Number(req.headers['content-length'] ?? 0)
        if (length > ARTIFACT_LIMITS.maxRequestSize + 1024 * 1024) {
          throw new ApiError('too_large', `request over ${ARTIFACT_LIMITS.maxRequestSize} bytes`)
        }
        if (!req.isMultipart()) {
          throw new ApiError('unsupported_media_type', 'send the chunks as multipart/form-data')
        }
        const chunks: { sha1: string; data: Buffer }[] = []
        try {
          for await (const part of req.files()) {
            if (part.fieldname !== 'file' && part.fieldname !== 'file_gzip') {
              part.file.resume()
              continue
            }
            const sha1 = part.filename.toLowerCase()
            const body = await part.toBuffer()
            if (!SHA1.test(sha1)) {
              throw new ApiError('bad_request', 'a chunk part must be named by its sha1 in hex')
            }
            const data = part.fieldname === 'file_gzip' ? gunzip(body, sha1) : body
            if (data.length > ARTIFACT_LIMITS.chunkSize) {
              throw new ApiError(
                'too_large',
                `chunk ${sha1}: over ${ARTIFACT_LIMITS.chunkSize} bytes`,
              )
            }
            const actual = createHash('sha1').update(data).digest('hex')
            if (actual !== sha1) {
              throw new ApiError('bad_request', `chunk ${sha1}: its bytes have sha1 ${actual}`)
            }
            chunks.push({ sha1, data })
          }
        } catch (err) {
          throw asApiError(err)
        }
        const now = Date.now()
        for (const c of chunks) await store.putArtifactChunk(teamId, c.sha1, c.data, now)
        return { stored: chunks.length }
      },
    )
  })

  app.post(
    '/api/0/organizations/:org/artifactbundle/assemble/',
    {
      config: { access: onOrg('project:admin') },
      schema: {
        summary:
          'Assemble an uploaded artifact bundle: `not_found` with the chunks still missing, then `ok` (or `error` with a detail)',
        params: OrgParams,
        body: AssembleBody,
        response: { 200: AssembleAnswer, ...errorResponses },
      },
    },
    async (req) => {
      const teamId = req.accessTeamId
      if (teamId === undefined) throw new ApiError('not_found', 'no such organization')
      const body = req.body
      const slugs = body.projects ?? []
      if (slugs.length === 0) {
        throw new ApiError(
          'bad_request',
          'name the project the bundle is for (sentry-cli --project / SENTRY_PROJECT)',
        )
      }
      const own = await teamProjects(store, teamId)
      const projectIds: number[] = []
      for (const slug of slugs) {
        const p = own.find((x) => x.slug === slug)
        // Sentry's answer (400, the text sentry-cli prints): a 404 made the CLI say "Release
        // not found", which sent users looking for a release instead of the project slug.
        if (p === undefined) throw new ApiError('bad_request', 'One or more projects are invalid')
        projectIds.push(p.id)
      }
      return assemble(teamId, body.checksum, body.chunks, projectIds, body.version ?? '', {
        dist: body.dist ?? '',
      })
    },
  )

  app.post(
    '/api/0/organizations/:org/releases/:version/assemble/',
    {
      config: { access: onOrg('project:admin') },
      schema: {
        summary:
          "Assemble a legacy release bundle (sentry-cli 2.x `releases files <v> upload <dir>` without a project): as the artifact-bundle assemble, for the release's projects",
        params: OrgParams.extend({ version: z.string().min(1).max(200) }),
        body: AssembleBody,
        response: { 200: AssembleAnswer, ...errorResponses },
      },
    },
    async (req) => {
      const teamId = req.accessTeamId
      if (teamId === undefined) throw new ApiError('not_found', 'no such organization')
      // Sentry's rule: a release bundle belongs to a recorded release (the CLI creates it
      // first), and serves the projects that release ships.
      const release = await store.getRelease(teamId, req.params.version)
      if (release === undefined) throw notFound('release')
      const projectIds = release.projects.map((p) => p.id)
      const body = req.body
      // The call names no dist: the bundle's manifest does (`--dist`).
      return assemble(teamId, body.checksum, body.chunks, projectIds, release.version, 'manifest')
    },
  )

  /**
   * Joins, checks, reads and stores a bundle whose chunks are all there (or links the team's
   * bundle with that checksum again), linked to `projectIds` for `release` and the dist given,
   * or, with `'manifest'`, the one the bundle's manifest names (a bundle stored before is
   * linked without one: its manifest is not read again).
   */
  async function assemble(
    teamId: number,
    checksum: string,
    chunks: string[],
    projectIds: number[],
    release: string,
    distFrom: { dist: string } | 'manifest',
  ): Promise<z.infer<typeof AssembleAnswer>> {
    const now = Date.now()
    const existing = await store.findArtifactBundle(teamId, checksum)
    if (existing !== undefined) {
      const dist = distFrom === 'manifest' ? '' : distFrom.dist
      await store.linkArtifactBundle(existing, projectIds, release, dist, now)
      sourceMaps.noteUpload(projectIds)
      return { state: 'ok' as const, missingChunks: [] }
    }
    const missing = await store.missingArtifactChunks(teamId, chunks)
    if (missing.length > 0) return { state: 'not_found' as const, missingChunks: missing }
    return oneAtATime(async () => {
      const chunkData = await store.artifactChunks(teamId, chunks)
      const parts: Buffer[] = []
      let size = 0
      for (const sha1 of chunks) {
        const c = chunkData.get(sha1)
        if (c === undefined) return { state: 'not_found' as const, missingChunks: [sha1] }
        size += c.length
        if (size > ARTIFACT_LIMITS.maxBundleSize) {
          return failed(`the bundle is over ${ARTIFACT_LIMITS.maxBundleSize} bytes`)
        }
        parts.push(c)
      }
      const bundle = Buffer.concat(parts)
      const actual = createHash('sha1').update(bundle).digest('hex')
      if (actual !== checksum) {
        return failed(`the chunks join to sha1 ${actual}, not the checksum ${checksum}`)
      }
      let read: ReadBundle
      try {
        read = await readArtifactBundle(bundle)
      } catch (err) {
        if (err instanceof BundleError) return failed(err.message)
        throw err
      }
      await store.storeArtifactBundle(
        {
          teamId,
          checksum,
          size: bundle.length,
          files: read.files,
          projectIds,
          release,
          dist: distFrom === 'manifest' ? (read.dist ?? '') : distFrom.dist,
          chunks,
        },
        Date.now(),
      )
      sourceMaps.noteUpload(projectIds)
      return { state: 'ok' as const, missingChunks: [] }
    })
  }
}

const failed = (detail: string) => ({
  state: 'error' as const,
  missingChunks: [],
  detail: detail.slice(0, 1000),
})

function gunzip(body: Buffer, sha1: string): Buffer {
  try {
    return gunzipSync(body, { maxOutputLength: ARTIFACT_LIMITS.chunkSize })
  } catch (err) {
    if (err instanceof RangeError || (err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new ApiError('too_large', `chunk ${sha1}: over ${ARTIFACT_LIMITS.chunkSize} bytes`)
    }
    throw new ApiError('bad_request', `chunk ${sha1}: not gzip (${(err as Error).message})`)
  }
}

/** Multipart limits and framing errors as the catalogue's answers (never a 500). */
function asApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err
  const code = (err as { code?: string }).code ?? ''
  const status = (err as { statusCode?: number }).statusCode
  if (
    code === 'FST_REQ_FILE_TOO_LARGE' ||
    code === 'FST_FILES_LIMIT' ||
    code === 'FST_PARTS_LIMIT'
  ) {
    return new ApiError(
      'too_large',
      `over the chunk limits (${ARTIFACT_LIMITS.chunksPerRequest} chunks of ${ARTIFACT_LIMITS.chunkSize} bytes per request)`,
    )
  }
  if (status === 413) return new ApiError('too_large', 'request too large')
  return new ApiError('bad_request', `malformed multipart body (${(err as Error).message})`)
}
