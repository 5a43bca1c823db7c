import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import { ApiError } from '../errors.ts'
import { normalizeEventId } from '../event/normalize.ts'
import type { LiveBus } from '../live/bus.ts'
import type { GroupCommitter } from '../store/group-commit.ts'
import type { ProjectStore } from '../store/types.ts'
import { credentialsFromDsn, credentialsFromRequest } from './auth.ts'
import { readBody } from './body.ts'
import { announceStored } from './commit.ts'
import { IngestContext } from './context.ts'
import { type Envelope, parseEnvelope, parseEnvelopeHeader } from './envelope.ts'
import { handleEventItem } from './items/event.ts'
import { handleItems } from './items/index.ts'
import type { KeyResolver, ResolvedKey } from './keys.ts'
import { type QuotaGate, type QuotaTicket, rateLimitHeaders } from './quota.ts'
import { countRejections } from './rejections.ts'
import { pathProject, requireRequestCredentials } from './request.ts'
import { decodeStoreBody } from './store-body.ts'

/** What the ingest routes need from the app. */
export interface IngestDeps {
  config: Config
  keys: KeyResolver
  committer: GroupCommitter
  bus: LiveBus
  quota: QuotaGate
  store: ProjectStore
}

declare module 'fastify' {
  interface FastifyRequest {
    ingestBody?: Buffer
  }
}

/** Ingest answers are never cached and always JSON; an active quota limit is announced. */
function reply200(reply: FastifyReply, body: object, limit?: Record<string, string>): FastifyReply {
  if (limit !== undefined) reply.headers(limit)
  return reply.code(200).header('cache-control', 'no-store').send(body)
}

/** Registers `/api/:projectId/envelope/` and `/api/:projectId/store/`. */
export async function ingestRoutes(app: FastifyInstance, deps: IngestDeps): Promise<void> {
  const { config, keys, committer, bus, quota } = deps
  countRejections(app, deps)
  app.removeAllContentTypeParsers()
  // Any or no Content-Type: Node sends none, browsers text/plain, others x-sentry-envelope.
  app.addContentTypeParser('*', (req, payload, done) => {
    readBody(payload, {
      maxCompressed: config.limits.maxCompressedBody,
      maxDecoded: config.limits.maxEnvelope,
    })
      .then((buf) => {
        req.ingestBody = buf
        done(null, buf)
      })
      .catch((err: unknown) => done(err as Error))
  })

  // Quota is charged per event before the commit and refunded for duplicates after it.
  const commit = async (ctx: IngestContext): Promise<void> => {
    const ticket = await quota.admit(ctx)
    const result = await committer.write(ctx.unit).catch((err: unknown) => {
      quota.cancel(ticket)
      throw err
    })
    quota.settle(ticket, result.events)
    announceStored(bus, ctx.project.id, result.events)
    overQuota(ticket)
  }

  // What was within the quota is stored; refused events make the answer a 429.
  const overQuota = (ticket: QuotaTicket): void => {
    if (ticket.retryAfter === undefined) return
    throw new ApiError(
      'over_quota',
      `event quota exceeded: ${ticket.refused} event(s) refused, retry after ${ticket.retryAfter} s`,
      [],
      rateLimitHeaders(ticket.retryAfter, true),
    )
  }

  const body = (req: FastifyRequest): Buffer => {
    const b = req.ingestBody
    if (b === undefined || b.length === 0) throw new ApiError('empty_body', 'empty request body')
    return b
  }

  const envelopeHandler = async (req: FastifyRequest, reply: FastifyReply) => {
    const projectId = pathProject(req)
    const received = Date.now()
    const buf = body(req)
    const fromRequest = credentialsFromRequest(req.query as Record<string, unknown>, req.headers)
    let resolved: ResolvedKey
    let envelope: Envelope
    if (fromRequest !== undefined) {
      resolved = await keys.resolve(fromRequest, projectId)
      envelope = parseEnvelope(buf)
    } else {
      let header: Record<string, unknown>
      try {
        header = parseEnvelopeHeader(buf)
      } catch {
        throw new ApiError(
          'missing_auth',
          'missing authorization, and the envelope header is not JSON',
        )
      }
      resolved = await keys.resolve(credentialsFromDsn(header['dsn']), projectId)
      envelope = parseEnvelope(buf)
    }
    const ctx = new IngestContext(resolved, received, envelope.header)
    const out = handleItems(envelope.items, ctx, config.limits)
    await commit(ctx)
    const id = out.eventIds[0] ?? normalizeEventId(envelope.header['event_id'])
    return reply200(reply, id === undefined ? {} : { id }, quota.activeLimit(ctx.project.id))
  }

  const storeHandler = async (req: FastifyRequest, reply: FastifyReply) => {
    const projectId = pathProject(req)
    const received = Date.now()
    const creds = requireRequestCredentials(req)
    const resolved = await keys.resolve(creds, projectId)
    const buf = body(req)
    if (String(req.headers['content-type'] ?? '').startsWith('application/x-sentry-envelope')) {
      const envelope = parseEnvelope(buf)
      const ctx = new IngestContext(resolved, received, envelope.header)
      const out = handleItems(envelope.items, ctx, config.limits)
      await commit(ctx)
      const id = out.eventIds[0]
      return reply200(reply, id === undefined ? {} : { id }, quota.activeLimit(ctx.project.id))
    }
    const ctx = new IngestContext(resolved, received, {})
    const id = handleEventItem(
      decodeStoreBody(buf, config.limits.maxEvent),
      ctx,
      config.limits.maxEvent,
      false,
    )
    await commit(ctx)
    return reply200(reply, { id }, quota.activeLimit(ctx.project.id))
  }

  // The app ignores trailing slashes and folds `//`, as Relay does.
  app.post('/api/:projectId/envelope/', envelopeHandler)
  app.post('/api/:projectId/store/', storeHandler)
}
