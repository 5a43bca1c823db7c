import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import { ApiError } from '../errors.ts'
import { normalizeEventId } from '../event/normalize.ts'
import type { LiveBus } from '../live/bus.ts'
import type { GroupCommitter } from '../store/group-commit.ts'
import { credentialsFromDsn, credentialsFromRequest } from './auth.ts'
import { readBody } from './body.ts'
import { IngestContext } from './context.ts'
import { type Envelope, parseEnvelope, parseEnvelopeHeader } from './envelope.ts'
import { handleEventItem } from './items/event.ts'
import { handleItems } from './items/index.ts'
import type { KeyResolver, ResolvedKey } from './keys.ts'
import { decodeStoreBody } from './store-body.ts'

/** What the ingest routes need from the app. */
export interface IngestDeps {
  config: Config
  keys: KeyResolver
  committer: GroupCommitter
  bus: LiveBus
}

declare module 'fastify' {
  interface FastifyRequest {
    ingestBody?: Buffer
  }
}

/** Path project ids are unsigned integers (Relay: u64). */
function pathProject(req: FastifyRequest): number {
  const raw = (req.params as { projectId?: string }).projectId ?? ''
  const id = /^\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN
  if (!Number.isSafeInteger(id))
    throw new ApiError('bad_project_path', `bad project id "${raw.slice(0, 40)}" in path`)
  return id
}

/** Ingest answers are never cached and always JSON. */
function reply200(reply: FastifyReply, body: object): FastifyReply {
  return reply.code(200).header('cache-control', 'no-store').send(body)
}

/** Registers `/api/:projectId/envelope/` and `/api/:projectId/store/`. */
export async function ingestRoutes(app: FastifyInstance, deps: IngestDeps): Promise<void> {
  const { config, keys, committer, bus } = deps
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

  const commit = async (ctx: IngestContext): Promise<void> => {
    const result = await committer.write(ctx.unit)
    for (const e of result.events) {
      if (e.duplicate) continue
      bus.emit('event.stored', {
        projectId: ctx.project.id,
        issueId: e.issueId,
        eventId: e.eventId,
        issueCreated: e.issueCreated,
        regressed: e.regressed,
      })
    }
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
    return reply200(reply, id === undefined ? {} : { id })
  }

  const storeHandler = async (req: FastifyRequest, reply: FastifyReply) => {
    const projectId = pathProject(req)
    const received = Date.now()
    const creds = credentialsFromRequest(req.query as Record<string, unknown>, req.headers)
    if (creds === undefined) {
      throw new ApiError(
        'missing_auth',
        'missing authorization: send sentry_key in the query or an X-Sentry-Auth header',
      )
    }
    const resolved = await keys.resolve(creds, projectId)
    const buf = body(req)
    if (String(req.headers['content-type'] ?? '').startsWith('application/x-sentry-envelope')) {
      const envelope = parseEnvelope(buf)
      const ctx = new IngestContext(resolved, received, envelope.header)
      const out = handleItems(envelope.items, ctx, config.limits)
      await commit(ctx)
      return reply200(reply, out.eventIds[0] === undefined ? {} : { id: out.eventIds[0] })
    }
    const ctx = new IngestContext(resolved, received, {})
    const id = handleEventItem(
      decodeStoreBody(buf, config.limits.maxEvent),
      ctx,
      config.limits.maxEvent,
      false,
    )
    await commit(ctx)
    return reply200(reply, { id })
  }

  // The app ignores trailing slashes and folds `//`, as Relay does.
  app.post('/api/:projectId/envelope/', envelopeHandler)
  app.post('/api/:projectId/store/', storeHandler)
}
