import type { Config } from './config.ts'
import type { DigestPool } from './ingest/digest-pool.ts'
import type { KeyResolver } from './ingest/keys.ts'
import type { QuotaGate } from './ingest/quota.ts'
import type { SourceMapResolver } from './ingest/source-maps/resolver.ts'
import type { LiveBus } from './live/bus.ts'
import type { Metrics } from './metrics/registry.ts'
import type { GroupCommitter } from './store/group-commit.ts'
import type { Store } from './store/types.ts'

/**
 * The long-lived parts of a running server, shared by routes, background jobs and tests. It has
 * a module of its own so features and the UI can name it without importing `app.ts` (the
 * composition root), which would make every feature part of one import cycle.
 */
export interface Services {
  config: Config
  store: Store
  bus: LiveBus
  committer: GroupCommitter
  /** Where event items are parsed, normalised and grouped: worker threads (`DIGEST_THREADS`). */
  digests: DigestPool
  keys: KeyResolver
  /**
   * The last quota window each project's commits reported, for the headers of answers; the
   * count itself is charged in the database (ingest/quota.ts).
   */
  quota: QuotaGate
  /** Base URL written into DSNs (set by `main.ts` once the port is known). */
  baseUrl: () => string
  setBaseUrl: (url: string) => void
  /** The Prometheus instruments (`/metrics`); undefined with `METRICS_ENABLED=0`. */
  metrics: Metrics | undefined
  /** Source maps for JavaScript frames: resolved at ingest and on the issue page. */
  sourceMaps: SourceMapResolver
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services
  }
}
