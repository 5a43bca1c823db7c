import type { IncomingMessage, Server, ServerResponse } from 'node:http'

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
 * What the early gate needs from the adaptive in-flight limit (`ingest/inflight-limit.ts`):
 * take a place, read its clock when one is taken, give the place back with that reading.
 */
export interface InflightGate {
  tryEnter(): boolean
  clock(): number
  leave(since: number): void
}

/** The answer a shed request gets: its `Retry-After` and the rate-limit headers beside it. */
export interface ShedAnswer {
  retryAfterSeconds: number
  /** The same headers the admission controller's own 429 carries (`ingest/admission.ts`). */
  headers: Readonly<Record<string, string>>
}

/** When an admitted request entered the in-flight limit (its clock), on its response. */
const ENTERED = Symbol('ingestInflightSince')
type Tracked = ServerResponse & { [ENTERED]?: number }

/**
 * Sheds ingest requests before Fastify sees them: while the admission controller says
 * overloaded (queue bound, main-thread lag) or the process already has as many ingest requests
 * in flight as its adaptive limit allows (`ingest/inflight-limit.ts`). The answer is the same
 * 429, `Retry-After` and rate-limit headers and `{"detail"}` body as the admission controller's
 * own, written from a prebuilt header list and body Buffer without routing, hooks, the error
 * handler or serialisation. Under overload the main thread spends much of its time refusing
 * requests, so what one refusal costs decides how much is left for accepted ones (measured in
 * docs/ingest-protection.md). The body is never read; Node discards it when the answer is done
 * and keeps the connection.
 *
 * Wraps the server's one `request` listener (Fastify's), so call it once after `Fastify()`.
 * The ingest layer supplies the gate, the answer and the limit: this module imports none of it.
 */
export function installEarlyShed(
  server: Server,
  gate: EarlyShedGate,
  answer: ShedAnswer,
  limit?: InflightGate,
): void {
  const { retryAfterSeconds } = answer
  const [fastify, ...others] = server.listeners('request') as ((
    req: IncomingMessage,
    res: ServerResponse,
  ) => void)[]
  if (fastify === undefined || others.length > 0) {
    throw new Error('installEarlyShed: expected exactly one request listener (Fastify)')
  }
  const body = Buffer.from(
    JSON.stringify({
      detail: `server overloaded (shed before reading): retry after ${retryAfterSeconds} s`,
    }),
  )
  // A flat [name, value, …] list: writeHead takes it as is, without walking an object's keys.
  const head: string[] = [
    'content-type',
    'application/json; charset=utf-8',
    'content-length',
    String(body.length),
    'cache-control',
    'no-store',
    ...Object.entries(answer.headers).flat(),
  ]
  // Browser SDKs post cross-origin: without these they could not read the rate-limit headers
  // (the CORS plugin adds the same on routed answers).
  const exposed = 'x-sentry-error, x-sentry-rate-limits, x-ingest-rate-limits, retry-after'
  // One shared listener (no closure per request): gives the place back when the answer is
  // sent or the client goes away ('close' comes once, in both cases).
  const leave = function (this: Tracked): void {
    const since = this[ENTERED]
    if (since !== undefined) limit?.leave(since)
  }
  server.removeListener('request', fastify)
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') return fastify(req, res)
    const m = INGEST_PATH.exec(req.url ?? '')
    if (m === null) return fastify(req, res)
    if (!gate.overloaded()) {
      if (limit === undefined) return fastify(req, res)
      if (limit.tryEnter()) {
        ;(res as Tracked)[ENTERED] = limit.clock()
        res.once('close', leave)
        return fastify(req, res)
      }
    }
    gate.noteEarlyShed(Number(m[1]), m[2] === 'store' ? 'error' : 'default')
    const origin = req.headers.origin
    if (origin !== undefined) {
      res.writeHead(429, [
        ...head,
        'access-control-allow-origin',
        origin,
        'access-control-expose-headers',
        exposed,
        'vary',
        'Origin',
      ])
    } else {
      res.writeHead(429, head)
    }
    res.end(body)
  })
}
