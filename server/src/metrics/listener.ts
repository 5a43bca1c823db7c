import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Metrics } from './registry.ts'
import { bearsToken } from './wiring.ts'

/** A running metrics listener: where it listens and how to stop it. */
export interface MetricsListener {
  server: Server
  /** `http://host:port` it listens on (the port resolved when 0 was asked). */
  url: string
  close(): Promise<void>
}

/**
 * The metrics listener: `GET /metrics` (the Prometheus text format) on its own address,
 * loopback unless `METRICS_HOST` says otherwise, so the public port never serves it by
 * default. With a token, it is answered only to requests bearing it here too. Started by the
 * entry point (main.ts) after the app listens; `buildApp` never listens. Tests pass port 0.
 */
export async function startMetricsListener(
  metrics: Metrics,
  opts: { host: string; port: number; token?: string | undefined },
): Promise<MetricsListener> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]
    if (req.method !== 'GET' || (path !== '/metrics' && path !== '/metrics/')) {
      res.writeHead(404, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ detail: 'only GET /metrics is served here' }))
      return
    }
    if (opts.token !== undefined && !bearsToken(req.headers.authorization, opts.token)) {
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' })
      res.end(JSON.stringify({ detail: 'metrics need Authorization: Bearer <METRICS_TOKEN>' }))
      return
    }
    metrics.render().then(
      ({ body, contentType }) => {
        res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' })
        res.end(body)
      },
      () => {
        res.writeHead(500, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ detail: 'metrics could not be collected' }))
      },
    )
  })
  // Scrapes come every few seconds over keep-alive: an idle socket is not held forever.
  server.keepAliveTimeout = 65_000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const addr = server.address() as AddressInfo
  const host = addr.address.includes(':') ? `[${addr.address}]` : addr.address
  return {
    server,
    url: `http://${host === '[::]' || host === '0.0.0.0' ? '127.0.0.1' : host}:${addr.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
