import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import { ApiError } from '../errors.ts'
import { PUBLIC } from '../http/route-access.ts'
import { readAuthenticatedBody } from '../ingest/authenticated-body.ts'
import { IngestContext } from '../ingest/context.ts'
import type { KeyResolver } from '../ingest/keys.ts'
import type { QuotaGate } from '../ingest/quota.ts'
import { commitWithQuota } from '../ingest/quota-commit.ts'
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
  // The key is checked before the body is read (ingest/authenticated-body.ts).
  app.addContentTypeParser('*', (req, payload, done) => {
    readAuthenticatedBody(req, payload, {
      keys,
      maxCompressed: config.limits.maxCompressedBody,
      maxDecoded: Math.min(config.limits.maxEnvelope, MAX_OTLP_DECODED),
      envelopeAuth: false,
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
    const resolved =
      req.ingestKey ?? (await keys.resolve(requireRequestCredentials(req), projectId))
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

    // Quota: one charge per error event, in the commit. A 429 is retried whole by the
    // exporter, so the other records count only when nothing was refused (the retry counts them).
    const admittedOnly = new IngestContext(resolved, received, {})
    if (digest.dropped > 0) admittedOnly.outcome('unsupported', 'log', 'log_item', digest.dropped)
    if (digest.tooLarge > 0) admittedOnly.outcome('rejected', 'too_large', 'error', digest.tooLarge)
    ctx.unit.outcomesIfAdmitted = admittedOnly.unit.outcomes
    await commitWithQuota({ quota, committer, bus, protection: app.ingestProtection }, ctx, {
      noun: 'error record(s)',
    })
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
  app.post('/api/:projectId/otlp/v1/logs', { config: { access: PUBLIC } }, handler)
  app.post('/api/:projectId/integration/otlp/v1/logs', { config: { access: PUBLIC } }, handler)
}
