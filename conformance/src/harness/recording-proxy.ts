/**
 * A loopback proxy between a stock SDK and the server that records every ingest request: when
 * it arrived, which item types it carried, and what the server answered. Tests use it to see
 * from outside the SDK what it actually sent — e.g. that it sent no event during a rate limit.
 */
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { promisify } from 'node:util'
import { brotliDecompress, gunzip, inflate } from 'node:zlib'

/** One request the SDK made, with the server's answer. */
export interface RecordedRequest {
  /** When the proxy received the request, ms. */
  at: number
  /** When the SDK's body was read and the request went on to the server, ms (if it did). */
  forwardedAt?: number | undefined
  /** When the server's answer came back, ms. */
  answeredAt: number
  method: string
  path: string
  /** Item types of the envelope in order (empty when the body is not an envelope). */
  itemTypes: string[]
  /** Its `session` and `sessions` (aggregate) items with their parsed payloads, as sent. */
  sessionItems: SessionItem[]
  status: number
  /** The server's rate-limit headers, as sent. */
  retryAfter: string | undefined
  rateLimits: string | undefined
  /** The request's `Content-Encoding` (undefined when the body was sent as is). */
  encoding: string | undefined
  /** The server's answer body (first 500 characters), for evidence. */
  answer: string
}

/** A request the proxy received and has not answered yet (the server's answer is awaited). */
export interface InFlightRequest {
  /** When the proxy received it, ms. */
  at: number
  method: string
  path: string
  /** When its body was read and it went on to the server (undefined: the body is still read). */
  forwardedAt?: number | undefined
}

/** A running proxy. */
export interface RecordingProxy {
  /** Base URL of the proxy. */
  url: string
  /**
   * Every answered request so far, in the order the answers came (a request is added once the
   * server answered it, or with status 502 when the proxy could not reach the server).
   */
  requests: RecordedRequest[]
  /** The requests received and not answered yet, oldest first. */
  inFlight(): InFlightRequest[]
  /** The DSN with its host replaced by the proxy's. */
  dsnFor(dsn: string): string
  close(): Promise<void>
}

const decoders: Record<string, (body: Buffer) => Promise<Buffer>> = {
  gzip: promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress),
}

/** One item of an envelope: its type and its payload bytes. */
export interface EnvelopeItem {
  type: string
  payload: Buffer
}

/** Items of an envelope: `length` when the item header has one, else up to the next LF. */
export function envelopeItems(body: Buffer): EnvelopeItem[] {
  const items: EnvelopeItem[] = []
  let pos = body.indexOf(0x0a)
  if (pos === -1) return items
  pos++
  while (pos < body.length) {
    let end = body.indexOf(0x0a, pos)
    if (end === -1) end = body.length
    const line = body.subarray(pos, end).toString('utf8').trim()
    pos = end + 1
    if (line === '') continue
    let header: unknown
    try {
      header = JSON.parse(line)
    } catch {
      return items
    }
    if (typeof header !== 'object' || header === null) return items
    const { type, length } = header as { type?: unknown; length?: unknown }
    const start = Math.min(pos, body.length)
    let stop: number
    if (typeof length === 'number') {
      stop = Math.min(start + length, body.length)
      pos += length + 1
    } else {
      const next = body.indexOf(0x0a, pos)
      stop = next === -1 ? body.length : next
      pos = next === -1 ? body.length : next + 1
    }
    items.push({
      type: typeof type === 'string' ? type : '?',
      payload: body.subarray(start, stop),
    })
  }
  return items
}

/** Item types of an envelope, in order. */
export function envelopeItemTypes(body: Buffer): string[] {
  return envelopeItems(body).map((item) => item.type)
}

/** A session update (`session`) or a batch of session aggregates (`sessions`) as sent. */
export interface SessionItem {
  type: 'session' | 'sessions'
  /** The parsed JSON payload (null when it was not JSON). */
  payload: unknown
}

/** The session items of an envelope, parsed. */
function sessionItems(items: readonly EnvelopeItem[]): SessionItem[] {
  const out: SessionItem[] = []
  for (const item of items) {
    if (item.type !== 'session' && item.type !== 'sessions') continue
    let payload: unknown = null
    try {
      payload = JSON.parse(item.payload.toString('utf8'))
    } catch {
      // kept as null: the scenario shows what it could not read
    }
    out.push({ type: item.type, payload })
  }
  return out
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

const HOP_BY_HOP = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
])

/** Starts a proxy on 127.0.0.1 forwarding everything to `target` (the server's base URL). */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const requests: RecordedRequest[] = []
  const inFlight = new Set<InFlightRequest>()
  const server = createServer((req, res) => {
    const method = req.method ?? 'GET'
    const arrived: InFlightRequest = {
      at: Date.now(),
      method,
      path: (req.url ?? '/').split('?')[0] ?? '/',
    }
    inFlight.add(arrived)
    let items: EnvelopeItem[] = []
    let encoding = ''
    const record = (
      answer: Omit<RecordedRequest, keyof InFlightRequest | 'answeredAt' | 'forwardedAt'>,
    ) => {
      inFlight.delete(arrived)
      requests.push({ ...arrived, answeredAt: Date.now(), ...answer })
    }
    void (async () => {
      const body = await readAll(req)
      encoding = String(req.headers['content-encoding'] ?? '').toLowerCase()
      const decode = decoders[encoding]
      const decoded = decode === undefined ? body : await decode(body).catch(() => Buffer.alloc(0))
      const headers: Record<string, string> = {}
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = String(value)
      }
      items = envelopeItems(decoded)
      arrived.forwardedAt = Date.now()
      const upstream = await fetch(`${target}${req.url ?? '/'}`, {
        method,
        headers,
        ...(method === 'GET' || method === 'HEAD' ? {} : { body }),
      })
      const answer = Buffer.from(await upstream.arrayBuffer())
      record({
        itemTypes: items.map((item) => item.type),
        sessionItems: sessionItems(items),
        status: upstream.status,
        retryAfter: upstream.headers.get('retry-after') ?? undefined,
        rateLimits: upstream.headers.get('x-sentry-rate-limits') ?? undefined,
        encoding: encoding === '' || encoding === 'identity' ? undefined : encoding,
        answer: answer.subarray(0, 500).toString('utf8'),
      })
      const out: Record<string, string> = {}
      upstream.headers.forEach((value, name) => {
        if (!HOP_BY_HOP.has(name) && name !== 'content-encoding') out[name] = value
      })
      res.writeHead(upstream.status, out).end(answer)
    })().catch((error: unknown) => {
      // The SDK gets a 502 for what the proxy could not forward; the evidence shows it too.
      const answer = JSON.stringify({ detail: `proxy: ${String(error)}` })
      record({
        itemTypes: items.map((item) => item.type),
        sessionItems: sessionItems(items),
        status: 502,
        retryAfter: undefined,
        rateLimits: undefined,
        encoding: encoding === '' || encoding === 'identity' ? undefined : encoding,
        answer,
      })
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' })
      res.end(answer)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const url = `http://127.0.0.1:${port}`
  return {
    url,
    requests,
    inFlight: () => [...inFlight],
    dsnFor(dsn) {
      const u = new URL(dsn)
      u.host = `127.0.0.1:${port}`
      return u.toString()
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((error) => (error ? reject(error) : resolve()))
      }),
  }
}
