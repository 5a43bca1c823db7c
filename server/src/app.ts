import cors from '@fastify/cors'
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify'
import { installAccessControl } from './accounts/access.ts'
import { setupAlerts } from './alerts/index.ts'
import { apiRoutes } from './api/index.ts'
import { installArtifactMaintenance } from './artifact-bundles/maintenance.ts'
import type { Config } from './config.ts'
import { installCronClock } from './crons/plugin.ts'
import { ApiError, errorStatus } from './errors.ts'
import { healthRoutes } from './http/health.ts'
import { installMethodNotAllowed } from './http/method-not-allowed.ts'
import { httpServerOptions } from './http/server-options.ts'
import { MAX_PATH_PARAM } from './http-kit/schemas.ts'
import { dropStaleIngestCaches } from './ingest/cache-invalidation.ts'
import { DIGEST_ON_WRITE_MODULE, digestingStore } from './ingest/digest-on-write.ts'
import { DigestPool } from './ingest/digest-pool.ts'
import { KeyResolver } from './ingest/keys.ts'
import { installIngestProtection } from './ingest/protection.ts'
import { QuotaGate } from './ingest/quota.ts'
import { ingestRoutes } from './ingest/routes.ts'
import { SourceMapResolver } from './ingest/source-maps/resolver.ts'
import { LiveBus } from './live/bus.ts'
import { Metrics } from './metrics/registry.ts'
import { countIngestRequests, metricsRoute, wireMetrics } from './metrics/wiring.ts'
import { otlpRoutes } from './otlp/routes.ts'
import { recordRoutes } from './route-table.ts'
import type { Services } from './services.ts'
import { GroupCommitter } from './store/group-commit.ts'
import { commitConcurrency, commitStartAt, openStore } from './store/open-store.ts'
import { installRetention } from './store/retention.ts'
import { installSearchBackfill } from './store/search-backfill-job.ts'
import type { Store } from './store/types.ts'
import { setupTriage } from './triage/index.ts'
import { webUi } from './ui/index.ts'
import { sessionPrincipalSource } from './ui/session-auth.ts'

/** Browser SDKs post cross-origin: allow any origin and expose the headers SDKs must read. */
const CORS = {
  origin: true,
  methods: ['POST', 'OPTIONS'],
  allowedHeaders: [
    'x-sentry-auth',
    'x-ingest-auth',
    'x-requested-with',
    'x-forwarded-for',
    'origin',
    'referer',
    'accept',
    'content-type',
    'authentication',
    'authorization',
    'content-encoding',
    'transfer-encoding',
  ],
  exposedHeaders: ['x-sentry-error', 'x-sentry-rate-limits', 'x-ingest-rate-limits', 'retry-after'],
  maxAge: 3600,
  strictPreflight: false,
}

/** Router errors (a path parameter over `MAX_PATH_PARAM` characters, a malformed URL) as `{"detail"}` too. */
function frameworkErrors(err: FastifyError, _req: FastifyRequest, reply: FastifyReply): void {
  reply.code(errorStatus(err)).send({ detail: err.message })
}

/** Renders every error as `{"detail": …}`; client mistakes are 4xx, only our own bugs are 500. */
function errorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | ApiError, req, reply) => {
    if (err instanceof ApiError) {
      if (err.status >= 500) req.log.error({ err }, 'api error')
      return reply.code(err.status).headers(err.headers).send(err.toBody())
    }
    const status = errorStatus(err)
    if (status >= 500) {
      req.log.error({ err }, 'unhandled error')
      return reply.code(500).send({ detail: 'internal server error' })
    }
    return reply.code(status).send({ detail: err.message })
  })
  app.setNotFoundHandler((req, reply) =>
    reply.code(404).send({ detail: `no route for ${req.method} ${req.url.split('?')[0]}` }),
  )
}

/**
 * Builds the whole server from a config without listening: store, services, ingest routes,
 * management API. Tests call it and use `inject()`; `main.ts` listens.
 */
export async function buildApp(
  config: Config,
  opts: { store?: Store } = {},
): Promise<FastifyInstance> {
  const app = Fastify({
    logger: config.logLevel === 'silent' ? false : { level: config.logLevel },
    // A path parameter may be as long as the longest name an event or a session stores (a
    // release: 256 characters), so every stored release can be read back by its name.
    routerOptions: {
      ignoreTrailingSlash: true,
      ignoreDuplicateSlashes: true,
      maxParamLength: MAX_PATH_PARAM,
    },
    frameworkErrors,
    // Keep-alive longer than SDKs' idle timeout (Node SDK v11: 2 s) to avoid ECONNRESET resends.
    keepAliveTimeout: 10_000,
    // Per-request log lines cost throughput on the hot path; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    ...httpServerOptions(config),
  })
  const store =
    opts.store ??
    (await openStore(config, {
      digestModule: DIGEST_ON_WRITE_MODULE,
      sourceMapCacheBytes: config.sourceMapCacheBytes,
    }))
  // onRoute hooks, so before any route is registered.
  installAccessControl(app, store)
  recordRoutes(app)
  installMethodNotAllowed(app)
  let baseUrl = config.publicUrl ?? `http://${config.host}:${config.port}`
  const metrics = config.metrics.enabled
    ? new Metrics({ projectLabels: config.metrics.projectLabels })
    : undefined
  // Without digest threads the store's write digests, and resolves source maps just before.
  const sourceMaps = new SourceMapResolver(store, {
    maxBytes: config.sourceMapCacheBytes,
    log: app.log,
    deferred: config.digestThreads === 0,
  })
  const services: Services = {
    config,
    store,
    bus: new LiveBus(),
    // Undigested event items are digested by the store's write (ingest/digest-on-write.ts).
    committer: new GroupCommitter(digestingStore(store, sourceMaps), {
      delayMs: config.commitDelayMs,
      maxInFlight: commitConcurrency(store, config),
      startAt: commitStartAt(store),
      // A group goes once every client lately in flight is back (group-commit.ts `wave`).
      wave: true,
      observer: metrics,
    }),
    digests: new DigestPool(config.digestThreads),
    keys: new KeyResolver(store),
    quota: new QuotaGate(),
    baseUrl: () => baseUrl,
    setBaseUrl: (url) => {
      if (config.publicUrl === undefined) baseUrl = url
    },
    sourceMaps,
    metrics,
  }
  app.decorate('services', services)
  dropStaleIngestCaches(app, services)
  installCronClock(app, services)
  installIngestProtection(app, config)
  healthRoutes(app, services.committer)
  installRetention(app, store, config.retentionDays, metrics?.pruned.bind(metrics))
  installArtifactMaintenance(app, store, config.retentionDays)
  installSearchBackfill(app, store)
  errorHandler(app)
  if (metrics !== undefined) {
    wireMetrics(app, metrics, store)
    metricsRoute(app, metrics, config.metrics.token)
  }

  await app.register(async (scope) => {
    if (metrics !== undefined) countIngestRequests(scope, metrics)
    await scope.register(cors, CORS)
    await ingestRoutes(scope, services)
    // OTLP logs: own body parser and error answers, CORS and rejection counting inherited.
    await scope.register(async (otlp) => otlpRoutes(otlp, services))
  })
  await app.register(async (scope) => {
    // The JSON API also accepts the UI's session cookie.
    await apiRoutes(scope, services, [sessionPrincipalSource(services.store)])
  })
  await app.register(async (scope) => webUi(scope, services))

  app.addHook('onClose', async () => {
    await services.committer.flush()
    await store.close()
  })
  // After the hook above: onClose hooks run last-registered first, so alert evaluations in
  // flight finish before the store closes.
  setupAlerts(app, services)
  setupTriage(app, store)
  return app
}
