import type { Server } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyHttpOptions } from 'fastify'
import type { Config } from '../config.ts'

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  431: 'Request Header Fields Too Large',
}

/** Status of an error Node's HTTP parser reports before any route runs. */
function statusOf(err: Error & { code?: string }): number {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return 408
    case 'HPE_HEADER_OVERFLOW':
      return 431
    case 'HPE_URI_TOO_LONG':
      return 414
    default:
      return 400
  }
}

/**
 * Answers errors of Node's HTTP parser (header overflow, bad request line, the request and
 * header timeouts) with the same `{"detail": …}` JSON as every other error, instead of Node's
 * empty body, then closes the connection (the parser state is unusable).
 */
function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy()
    return
  }
  const status = statusOf(err)
  const detail =
    status === 408
      ? 'request not received in time'
      : status === 431
        ? 'request header fields too large'
        : status === 414
          ? 'request URI too long'
          : 'malformed HTTP request'
  const body = JSON.stringify({ detail })
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Bad Request'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  )
}

/**
 * Server options that bound how long a client may hold a connection: the whole request (headers
 * and body) must arrive within `requestTimeoutMs` (408), headers within `headersTimeoutMs`, and
 * an idle socket is closed after `idleTimeoutMs`. Node checks these every
 * `connectionsCheckingInterval` (default 30 s), so a short interval keeps the cut near the limit.
 * Spread into `Fastify({...})`.
 */
export function httpServerOptions(config: Config): FastifyHttpOptions<Server> {
  const p = config.protection
  return {
    requestTimeout: p.requestTimeoutMs,
    connectionTimeout: p.idleTimeoutMs,
    http: {
      requestTimeout: p.requestTimeoutMs,
      // Node refuses a headers timeout longer than the request timeout.
      headersTimeout: Math.min(p.headersTimeoutMs, p.requestTimeoutMs),
      connectionsCheckingInterval: Math.max(100, Math.min(1000, p.requestTimeoutMs / 4)),
    },
    clientErrorHandler,
  }
}
