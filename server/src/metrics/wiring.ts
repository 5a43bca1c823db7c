import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { PUBLIC } from '../http/route-access.ts'
import '../crons/plugin.ts'
import '../ingest/protection.ts'
import type { Store } from '../store/types.ts'
import type { Metrics } from './registry.ts'

/**
 * Points the scrape-time gauges at the parts that keep their values: the admission controller
 * (queue, shed requests), the in-flight limit, the disk guard, the store backend and the cron
 * clock. Call once the app has them (after `installIngestProtection` and `installCronClock`).
 */
export function wireMetrics(
  app: FastifyInstance,
  metrics: Metrics,
  store: Pick<Store, 'usage'>,
): void {
  const { admission, inflight, disk } = app.ingestProtection
  metrics.setSources({
    queue: () => {
      const u = admission.usage()
      return { units: u.units, bound: u.unitBound }
    },
    inflight: () => inflight.usage(),
    shed: () => admission.shedCounts(),
    diskLow: () => disk.blocked(),
    backend: () => store.usage?.(),
    cron: () => app.cronClock.stats(),
  })
}

/**
 * Counts each answered ingest request by route and status (an `onResponse` hook of the
 * ingest scope: one counter increment per request, nothing on the way in).
 */
export function countIngestRequests(scope: FastifyInstance, metrics: Metrics): void {
  scope.addHook('onResponse', (req, reply, done) => {
    if (req.method === 'POST') metrics.request(req.routeOptions.url ?? '', reply.statusCode)
    done()
  })
}

const digest = (s: string): Buffer => createHash('sha256').update(s).digest()

/** Whether an `Authorization` header bears `token` (compared in constant time). */
export function bearsToken(header: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')
  return m?.[1] !== undefined && timingSafeEqual(digest(m[1]), digest(token))
}

/**
 * `GET /metrics` on the public port, only with `METRICS_TOKEN` set and only for requests that
 * bear it; without a token the route does not exist here (the metrics listener serves it).
 */
export function metricsRoute(
  app: FastifyInstance,
  metrics: Metrics,
  token: string | undefined,
): void {
  if (token === undefined) return
  app.get('/metrics', { config: { access: PUBLIC } }, async (req, reply) => {
    if (!bearsToken(req.headers.authorization, token)) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer')
        .send({ detail: 'metrics need Authorization: Bearer <METRICS_TOKEN>' })
    }
    const { body, contentType } = await metrics.render()
    return reply.header('content-type', contentType).header('cache-control', 'no-store').send(body)
  })
}
