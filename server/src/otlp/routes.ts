import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import { ApiError } from '../errors.ts'
import { readBody } from '../ingest/body.ts'
import { announceStored } from '../ingest/commit.ts'
import { IngestContext } from '../ingest/context.ts'
import type { KeyResolver } from '../ingest/keys.ts'
import { type QuotaGate, rateLimitHeaders } from '../ingest/quota.ts'
import { pathProject, requireRequestCredentials } from '../ingest/request.ts'
import type { LiveBus } from '../live/bus.ts'
import type { GroupCommitter } from '../store/group-commit.ts'
import {
  contentTypeOf,
  decodeLogsRequest,
  encodeLogsResponse,
  encodeStatus,
  grpcCodeOf,
  type OtlpEncoding,
  otlpEncoding,
} from './decode.ts'
import { digestLogs, requestDigest } from './digest-logs.ts'

/** What the OTLP routes need from the app (a subset of its services). */
export interface OtlpDeps {
  config: Config
  keys: KeyResolver
  committer: GroupCommitter
  bus: LiveBus
  quota: QuotaGate
}

declare module 'fastify' {
  interface FastifyRequest {
    otlpBody?: Buffer
  }
}

/** Largest decoded OTLP body (Relay's log container limit); the envelope cap if lower. */
const MAX_OTLP_DECODED = 12 * 1024 * 1024

/**
 * Errors as an OTLP/HTTP server answers them: a protobuf request gets a binary google.rpc.Status;
 * everything else our JSON `{"detail"}`, which for a JSON request also carries the Status fields
 * `code` and `message` (so it is a valid OTLP JSON Status as well).
 */
function otlpErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | ApiError, req, reply) => {
    const status =
      err instanceof ApiError
        ? err.status
        : typeof err.statusCode === 'number' && err.statusCode >= 400
          ? err.statusCode
          : 500
    if (status >= 500) req.log.error({ err }, 'otlp error')
    const detail =
      status >= 500 && !(err instanceof ApiError) ? 'internal server error' : err.message
    const causes = err instanceof ApiError ? err.causes : []
    if (err instanceof ApiError) reply.headers(err.headers)
    reply.code(status).header('cache-control', 'no-store')
    const encoding = otlpEncoding(req.headers['content-type'])
    const code = grpcCodeOf(status)
    if (encoding === 'protobuf') {
      return reply
        .header('content-type', contentTypeOf('protobuf'))
        .send(encodeStatus(code, detail))
    }
    const body = {
      detail,
      ...(causes.length > 0 ? { causes } : {}),
      ...(encoding === 'json' ? { code, message: detail } : {}),
    }
    return reply.send(body)
  })
}

function answer(
  reply: FastifyReply,
  encoding: OtlpEncoding,
  body: Buffer,
  limit: Record<string, string> | undefined,
): FastifyReply {
  if (limit !== undefined) reply.headers(limit)
  return reply
    .code(200)
    .header('cache-control', 'no-store')
    .header('content-type', contentTypeOf(encoding))
    .send(body)
}

/**
 * `POST /api/:projectId/otlp/v1/logs` and Relay's `/api/:projectId/integration/otlp/v1/logs`:
 * OTLP/HTTP log exports (protobuf or JSON, any Content-Encoding the envelope endpoint takes).
 * Records of error severity become events (stored, grouped, alerted, triaged, charged to the
 * quota); the others are counted as `unsupported:log` and dropped. Register in a scope of its
 * own: it installs its own body parser and error answers.
 */
export async function otlpRoutes(app: FastifyInstance, deps: OtlpDeps): Promise<void> {
  const { config, keys, committer, bus, quota } = deps
  otlpErrorHandler(app)
  app.removeAllContentTypeParsers()
  // Read every body with the ingest caps; the handler answers 415 for types OTLP does not have.
  app.addContentTypeParser('*', (req, payload, done) => {
    readBody(payload, {
      maxCompressed: config.limits.maxCompressedBody,
      maxDecoded: Math.min(config.limits.maxEnvelope, MAX_OTLP_DECODED),
    })
      .then((buf) => {
        req.otlpBody = buf
        done(null, buf)
      })
      .catch((err: unknown) => done(err as Error))
  })

  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const projectId = pathProject(req)
    const received = Date.now()
    // Credentials as on the other ingest endpoints: query, then header (no envelope here).
    const creds = requireRequestCredentials(req)
    const resolved = await keys.resolve(creds, projectId)
    const encoding = otlpEncoding(req.headers['content-type'])
    if (encoding === undefined) {
      const type = String(req.headers['content-type'] ?? '').slice(0, 100)
      throw new ApiError(
        'unsupported_media_type',
        `unsupported Content-Type "${type}": OTLP/HTTP logs are application/x-protobuf or application/json`,
      )
    }
    const body = req.otlpBody ?? Buffer.alloc(0)
    const request = decodeLogsRequest(body, encoding)

    const ctx = new IngestContext(resolved, received, {})
    const digest = digestLogs(request, ctx, {
      maxEvent: config.limits.maxEvent,
      requestDigest: requestDigest(body),
    })
    for (const row of digest.events) ctx.addEvent(row)

    // Quota: one charge per error event; events over it are removed from the unit and counted.
    const ticket = await quota.admit(ctx)
    const limited = ticket.retryAfter !== undefined
    // A 429 is retried whole by the exporter: the other records are counted by the retry.
    if (!limited) {
      if (digest.dropped > 0) ctx.outcome('unsupported', 'log', 'log_item', digest.dropped)
      if (digest.tooLarge > 0) ctx.outcome('rejected', 'too_large', 'error', digest.tooLarge)
    }
    const result = await committer.write(ctx.unit).catch((err: unknown) => {
      quota.cancel(ticket)
      throw err
    })
    quota.settle(ticket, result.events)
    announceStored(bus, ctx.project.id, result.events)
    if (limited) {
      throw new ApiError(
        'over_quota',
        `event quota exceeded: ${ticket.refused} error record(s) refused, retry after ${ticket.retryAfter ?? 1} s`,
        [],
        rateLimitHeaders(ticket.retryAfter ?? 1, true),
      )
    }
    const message =
      digest.tooLarge > 0
        ? `${digest.tooLarge} error record(s) exceed the event size limit of ${config.limits.maxEvent} bytes`
        : ''
    return answer(
      reply,
      encoding,
      encodeLogsResponse(encoding, digest.tooLarge, message),
      quota.activeLimit(ctx.project.id),
    )
  }

  // The app ignores trailing slashes and folds `//`, as Relay does.
  app.post('/api/:projectId/otlp/v1/logs', handler)
  app.post('/api/:projectId/integration/otlp/v1/logs', handler)
}
