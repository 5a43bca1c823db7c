import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import { ApiError } from '../errors.ts'
import { normalizeEventId } from '../event/normalize.ts'
import { PUBLIC } from '../http/route-access.ts'
import type { LiveBus } from '../live/bus.ts'
import type { ChangeFeed } from '../store/change-feed.ts'
import type { GroupCommitter } from '../store/group-commit.ts'
import type { ProjectStore, WriteUnitResult } from '../store/types.ts'
import { readAuthenticatedBody } from './authenticated-body.ts'
import { IngestContext } from './context.ts'
import { type DigestPool, digestQueued } from './digest-pool.ts'
import { parseEnvelope } from './envelope.ts'
import { queueEventItem } from './items/event.ts'
import { handleItems } from './items/index.ts'
import type { KeyResolver, ResolvedKey } from './keys.ts'
import { decodeStoreBody } from './legacy-store-body.ts'
import { storeBodyKind } from './legacy-store-event-type.ts'
import { budgetHooks, refuseWhileDiskLow } from './protection.ts'
import type { QuotaGate } from './quota.ts'
import { commitWithQuota } from './quota-commit.ts'
import { countRejections } from './rejections.ts'
import { pathProject, requireRequestCredentials } from './request.ts'
import type { SourceMapResolver } from './source-maps/resolver.ts'

/** What the ingest routes need from the app. */
export interface IngestDeps {
  config: Config
  keys: KeyResolver
  committer: GroupCommitter
  digests: DigestPool
  bus: LiveBus
  quota: QuotaGate
  store: ProjectStore & { changes: ChangeFeed }
  /** Rewrites minified JavaScript frames before the digest (docs/source-maps.md). */
  sourceMaps: SourceMapResolver
}

declare module 'fastify' {
  interface FastifyRequest {
    ingestBody?: Buffer
  }
}

/**
 * Ingest answers are never cached; an active quota limit is announced. The body is JSON, or a
 * Buffer sent as it is under the content type the caller set.
 */
function reply200(reply: FastifyReply, body: object, limit?: Record<string, string>): FastifyReply {
  if (limit !== undefined) reply.headers(limit)
  return reply.code(200).header('cache-control', 'no-store').send(body)
}

/**
 * The id a request's first event item was stored (or found a duplicate) under: the commit's
 * results begin with the digested events, in item order (a check-in's failure event comes
 * after them).
 */
function firstEventId(ctx: IngestContext, result: WriteUnitResult): string | undefined {
  return ctx.digests.length > 0 ? result.events[0]?.eventId : undefined
}

/** A transparent 1×1 GIF: the answer to the `GET /store/` image beacon. */
const PIXEL_GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64')

/** Registers `/api/:projectId/envelope/` and `/api/:projectId/store/` (POST, and GET's beacon). */
export async function ingestRoutes(app: FastifyInstance, deps: IngestDeps): Promise<void> {
  const { config, keys, committer, bus, quota, digests, sourceMaps } = deps
  countRejections(app, deps)
  budgetHooks(app)
  app.removeAllContentTypeParsers()
  // Any or no Content-Type: Node sends none, browsers text/plain, others x-sentry-envelope.
  // The key is checked before the body is read (authenticated-body.ts).
  app.addContentTypeParser('*', (req, payload, done) => {
    readAuthenticatedBody(req, payload, {
      keys,
      maxCompressed: config.limits.maxCompressedBody,
      maxDecoded: config.limits.maxEnvelope,
      envelopeAuth: !(req.routeOptions.url ?? '').endsWith('/store/'),
    })
      .then((buf) => {
        req.ingestBody = buf
        done(null, buf)
      })
      .catch((err: unknown) => done(err as Error))
  })

  const commit = (ctx: IngestContext) =>
    commitWithQuota({ quota, committer, bus, protection: app.ingestProtection }, ctx, {
      noun: 'event(s)',
    })

  /** The key checked before the body was read; a request without a body is checked here. */
  const keyOf = async (req: FastifyRequest, projectId: number): Promise<ResolvedKey> =>
    req.ingestKey ?? keys.resolve(requireRequestCredentials(req), projectId)

  const body = (req: FastifyRequest): Buffer => {
    const b = req.ingestBody
    if (b === undefined || b.length === 0) throw new ApiError('empty_body', 'empty request body')
    return b
  }

  /** An envelope's items handled, its events digested and everything committed. */
  const ingestEnvelope = async (req: FastifyRequest, resolved: ResolvedKey, received: number) => {
    const envelope = parseEnvelope(body(req))
    const ctx = new IngestContext(resolved, received, envelope.header, req.ip)
    handleItems(envelope.items, ctx, config.limits)
    await sourceMaps.resolveQueued(ctx)
    await digestQueued(ctx, digests)
    const result = await commit(ctx)
    return { ctx, id: firstEventId(ctx, result), header: envelope.header }
  }

  const envelopeHandler = async (req: FastifyRequest, reply: FastifyReply) => {
    const projectId = pathProject(req)
    const received = Date.now()
    const resolved = await keyOf(req, projectId)
    const { ctx, id: eventId, header } = await ingestEnvelope(req, resolved, received)
    const id = eventId ?? normalizeEventId(header['event_id'])
    return reply200(reply, id === undefined ? {} : { id }, quota.activeLimit(ctx.project.id))
  }

  const storeHandler = async (req: FastifyRequest, reply: FastifyReply) => {
    const projectId = pathProject(req)
    const received = Date.now()
    const resolved = await keyOf(req, projectId)
    if (String(req.headers['content-type'] ?? '').startsWith('application/x-sentry-envelope')) {
      const { ctx, id } = await ingestEnvelope(req, resolved, received)
      return reply200(reply, id === undefined ? {} : { id }, quota.activeLimit(ctx.project.id))
    }
    const ctx = new IngestContext(resolved, received, {}, req.ip)
    const stored = await storeEvent(ctx, decodeStoreBody(body(req), config.limits.maxEvent))
    return reply200(reply, stored, quota.activeLimit(ctx.project.id))
  }

  /** A legacy event (already decoded): a transaction is counted, an error digested and committed. */
  const storeEvent = async (ctx: IngestContext, decoded: Buffer): Promise<{ id?: string }> => {
    const kind = storeBodyKind(decoded)
    if (kind.transaction) {
      // A transaction item, as Relay makes it: counted like one in an envelope, never an issue.
      handleItems([{ header: { type: 'transaction' }, payload: decoded }], ctx, config.limits)
      await commit(ctx)
      return kind.eventId === undefined ? {} : { id: kind.eventId }
    }
    queueEventItem(decoded, ctx, config.limits.maxEvent, false)
    await sourceMaps.resolveQueued(ctx)
    await digestQueued(ctx, digests)
    const id = firstEventId(ctx, await commit(ctx))
    return id === undefined ? {} : { id }
  }

  /**
   * `GET /store/?sentry_data=…&sentry_key=…`: the image beacon of old browser clients (raven-js
   * before XHR), which put the event in the query and read nothing of the answer but an image
   * (protocol.md §3.3, item 8). Answered with a 1×1 transparent GIF; errors stay JSON.
   */
  const beaconHandler = async (req: FastifyRequest, reply: FastifyReply) => {
    const projectId = pathProject(req)
    const received = Date.now()
    const resolved = await keyOf(req, projectId)
    refuseWhileDiskLow(app.ingestProtection)
    const query = req.query as Record<string, unknown>
    const data = query['sentry_data'] ?? query['ingest_data']
    if (typeof data !== 'string' || data === '') {
      throw new ApiError('empty_body', 'missing sentry_data: the event goes in the query')
    }
    const ctx = new IngestContext(resolved, received, {}, req.ip)
    await storeEvent(ctx, decodeStoreBody(Buffer.from(data, 'utf8'), config.limits.maxEvent))
    return reply200(reply.type('image/gif'), PIXEL_GIF, quota.activeLimit(ctx.project.id))
  }

  // The app ignores trailing slashes and folds `//`, as Relay does.
  app.post('/api/:projectId/envelope/', { config: { access: PUBLIC } }, envelopeHandler)
  app.post('/api/:projectId/store/', { config: { access: PUBLIC } }, storeHandler)
  app.get('/api/:projectId/store/', { config: { access: PUBLIC } }, beaconHandler)
}
