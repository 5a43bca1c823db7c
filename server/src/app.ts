import cors from '@fastify/cors'
import Fastify, { type FastifyError, type FastifyInstance, LogController } from 'fastify'
import { setupAlerts } from './alerts/index.ts'
import { apiRoutes } from './api/index.ts'
import type { PrincipalSource } from './api/principal.ts'
import type { Config } from './config.ts'
import { installCronClock } from './crons/plugin.ts'
import { ApiError } from './errors.ts'
import { KeyResolver } from './ingest/keys.ts'
import { QuotaGate } from './ingest/quota.ts'
import { ingestRoutes } from './ingest/routes.ts'
import { LiveBus } from './live/bus.ts'
import { otlpRoutes } from './otlp/routes.ts'
import { GroupCommitter } from './store/group-commit.ts'
import { installRetention } from './store/retention.ts'
import { openSqliteStore } from './store/sqlite/index.ts'
import type { Store } from './store/types.ts'
import { setupTriage } from './triage/index.ts'
import { webUi } from './ui/index.ts'

/** The long-lived parts of a running server, shared by routes, background jobs and tests. */
export interface Services {
  config: Config
  store: Store
  bus: LiveBus
  committer: GroupCommitter
  keys: KeyResolver
  /** Per-project event quotas, counted in memory on the hot path (ingest/quota.ts). */
  quota: QuotaGate
  /** Base URL written into DSNs (set by `main.ts` once the port is known). */
  baseUrl: () => string
  setBaseUrl: (url: string) => void
  /** Extra ways to authenticate management requests (the UI's session cookie). */
  principalSources: PrincipalSource[]
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services
  }
}

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

/** Renders every error as `{"detail": …}`; client mistakes are 4xx, only our own bugs are 500. */
function errorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | ApiError, req, reply) => {
    if (err instanceof ApiError) {
      if (err.status >= 500) req.log.error({ err }, 'api error')
      return reply.code(err.status).headers(err.headers).send(err.toBody())
    }
    const status =
      typeof err.statusCode === 'number' && err.statusCode >= 400 ? err.statusCode : 500
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
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
    // Keep-alive longer than SDKs' idle timeout (Node SDK v11: 2 s) to avoid ECONNRESET resends.
    keepAliveTimeout: 10_000,
    // Per-request log lines cost throughput on the hot path; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
  })
  const store = opts.store ?? (await openSqliteStore(config.databasePath))
  let baseUrl = config.publicUrl ?? `http://${config.host}:${config.port}`
  const services: Services = {
    config,
    store,
    bus: new LiveBus(),
    committer: new GroupCommitter(store, { delayMs: config.commitDelayMs }),
    keys: new KeyResolver(store),
    quota: new QuotaGate(store),
    baseUrl: () => baseUrl,
    setBaseUrl: (url) => {
      if (config.publicUrl === undefined) baseUrl = url
    },
    principalSources: [],
  }
  app.decorate('services', services)
  installCronClock(app, services)
  installRetention(app, store, config.retentionDays)
  errorHandler(app)

  await app.register(async (scope) => {
    await scope.register(cors, CORS)
    await ingestRoutes(scope, services)
    // OTLP logs: own body parser and error answers, CORS and rejection counting inherited.
    await scope.register(async (otlp) => otlpRoutes(otlp, services))
  })
  await app.register(async (scope) => {
    await apiRoutes(scope, { ...services, adminToken: config.adminToken })
  })
  await app.register(webUi)

  app.addHook('onClose', async () => {
    await services.committer.flush()
    await store.close()
  })
  // After the hook above: onClose hooks run last-registered first, so alert evaluations in
  // flight finish before the store closes.
  setupAlerts(app)
  setupTriage(app)
  return app
}
