import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { shedHeaders } from '../ingest/admission.ts'

/** Ingest routes, by path: the project id, and whether the route is `/store/` (category `error`). */
const INGEST_PATH =
  /^\/api\/(\d{1,15})\/(envelope|store|otlp\/v1\/logs|integration\/otlp\/v1\/logs)\/?(?:\?|$)/

/** What the early gate needs from the admission controller. */
export interface EarlyShedGate {
  /** Whether a new ingest request would be shed now. */
  overloaded(): boolean
  /** Notes one shed request for the `rejected:overloaded` outcome. */
  noteEarlyShed(projectId: number, category: string): void
}

/**
 * Sheds ingest requests before Fastify sees them while the server is overloaded: the same 429,
 * `Retry-After` and rate-limit headers and `{"detail"}` body as the admission controller's own
 * answer, written from prebuilt strings without routing, hooks, the error handler or
 * serialisation. Under overload the main thread spends most of its time refusing requests, so
 * what one refusal costs decides how much is left for accepted ones (measured in
 * docs/ingest-protection.md: about 110 µs through Fastify's error path, against the ~150 µs of
 * an accepted event). The body is never read; Node discards it when the answer is done and
 * keeps the connection.
 *
 * Wraps the server's one `request` listener (Fastify's), so call it once after `Fastify()`.
 */
export function installEarlyShed(
  server: Server,
  gate: EarlyShedGate,
  retryAfterSeconds: number,
): void {
  const [fastify, ...others] = server.listeners('request') as ((
    req: IncomingMessage,
    res: ServerResponse,
  ) => void)[]
  if (fastify === undefined || others.length > 0) {
    throw new Error('installEarlyShed: expected exactly one request listener (Fastify)')
  }
  const body = JSON.stringify({
    detail: `server overloaded (shed before reading): retry after ${retryAfterSeconds} s`,
  })
  const headers: Record<string, string | number> = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    ...shedHeaders(retryAfterSeconds),
  }
  // Browser SDKs post cross-origin: without these they could not read the rate-limit headers
  // (the CORS plugin adds the same on routed answers).
  const exposed = 'x-sentry-error, x-sentry-rate-limits, x-ingest-rate-limits, retry-after'
  server.removeListener('request', fastify)
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST' || !gate.overloaded()) return fastify(req, res)
    const m = INGEST_PATH.exec(req.url ?? '')
    if (m === null) return fastify(req, res)
    gate.noteEarlyShed(Number(m[1]), m[2] === 'store' ? 'error' : 'default')
    const origin = req.headers.origin
    if (origin !== undefined) {
      res.setHeader('access-control-allow-origin', origin)
      res.setHeader('access-control-expose-headers', exposed)
      res.setHeader('vary', 'Origin')
    }
    res.writeHead(429, headers)
    res.end(body)
  })
}
