import { resolve } from 'node:path'

/** Size limits, defaulting to Relay's numbers (protocol.md §2.4) where Relay has one. */
export interface Limits {
  /** Largest request body as received (before decompression), bytes. */
  maxCompressedBody: number
  /** Largest envelope after decompression, bytes. */
  maxEnvelope: number
  /** Largest single event item or `/store/` body, bytes. */
  maxEvent: number
  /** Largest session/check-in/client-report item, bytes. */
  maxSmallItem: number
}

/** Everything the server reads from its environment, read once at start-up. */
export interface Config {
  host: string
  port: number
  dataDir: string
  /** SQLite file path, or ':memory:' for tests. */
  databasePath: string
  /** `DATABASE_URL` (`postgres://…`): run on PostgreSQL instead of SQLite (docs/postgresql.md). */
  databaseUrl: string | undefined
  /** PostgreSQL connections per server process, and group commits in flight (`DATABASE_POOL_SIZE`). */
  databasePoolSize: number
  /** Public base URL written into DSNs; defaults to the listening address. */
  publicUrl: string | undefined
  adminEmail: string | undefined
  adminPassword: string | undefined
  /** Extra admin API token accepted for automation (`INGEST_ADMIN_TOKEN`). */
  adminToken: string | undefined
  /** Trust `X-Forwarded-Proto` from a TLS-terminating proxy (`TRUST_PROXY=1`); off by default. */
  trustProxy: boolean
  limits: Limits
  /** Longest a request waits for its group commit before the batch is flushed anyway, ms. */
  commitDelayMs: number
  /**
   * Worker threads that digest event items (`DIGEST_THREADS`; 0, the default: the store's
   * write digests them, on SQLite's writer thread, on the main thread for PostgreSQL). Slower
   * on two cores, for more RSS; meant for machines with more cores (docs/ingest-hot-path.md).
   */
  digestThreads: number
  logLevel: string
  /** How often the cron clock looks for missed and overrunning runs, ms; 0: never on its own. */
  cronClockIntervalMs: number
  /** `INGEST_TEST_CLOCK=1`: admin-only `POST /api/0/internal/clock/tick/?now=` (tests only). */
  testClock: boolean
  /** SMTP server e-mail alerts go through (`SMTP_*`); undefined without `SMTP_HOST`. */
  smtp: SmtpConfig | undefined
  /** Alert delivery timing (`ALERT_*`); tests shorten it. */
  alerts: AlertTiming
  /** Budgets, timeouts and guards against hostile or overwhelming clients (docs/ingest-protection.md). */
  protection: Protection
  /** Days events, health sessions and outcomes are kept (`RETENTION_DAYS`); 0: forever. */
  retentionDays: number
  /** Bytes of parsed source maps kept in memory per node (`SOURCE_MAP_CACHE_MB`). */
  sourceMapCacheBytes: number
  /** What SIGTERM does before exiting (`SHUTDOWN_*`, docs/deployment.md). */
  shutdown: ShutdownTiming
  /** The Prometheus endpoint (`METRICS_*`, docs/operations.md). */
  metrics: MetricsConfig
}

/**
 * Who may read `GET /metrics` and what it labels. By default it is served only on its own
 * listener on loopback, never on the public port; with a token it is also served on the public
 * port to requests that bear it.
 */
export interface MetricsConfig {
  /** `METRICS_ENABLED=0` turns the instruments off entirely (no endpoint, no counting). */
  enabled: boolean
  /** Address of the metrics listener (`METRICS_HOST`, default loopback). */
  host: string
  /** Port of the metrics listener (`METRICS_PORT`, default 9464; 0: any free port). */
  port: number
  /** `METRICS_TOKEN`: `/metrics` is also served on the public port to `Authorization: Bearer <token>`. */
  token: string | undefined
  /**
   * `METRICS_PROJECT_LABELS`: label outcome counters by project id for at most this many
   * projects (the first seen; later ones share `project="other"`); 0, the default: no project label.
   */
  projectLabels: number
}

/** SIGTERM: `/readyz` answers 503 for `drainMs` first, then the server closes within `timeoutMs`. */
export interface ShutdownTiming {
  /** Unready but still serving, so the load balancer stops routing here (`SHUTDOWN_DRAIN_MS`). */
  drainMs: number
  /** Longest the close (requests in flight, last group commit) may take; then exit 1 (`SHUTDOWN_TIMEOUT_MS`). */
  timeoutMs: number
}

/** Ingest protection settings; defaults in {@link DEFAULT_PROTECTION}. */
export interface Protection {
  /** Request body bytes (compressed plus decoded) all requests may hold at once (`INGEST_MAX_INFLIGHT_BYTES`). */
  maxInflightBytes: number
  /** Ingest units waiting for the group commit before new ones are shed (`INGEST_MAX_QUEUED_UNITS`). */
  maxQueuedUnits: number
  /** Queueing latency the shedding aims for, ms (`INGEST_TARGET_LATENCY_MS`); see ingest/admission.ts. */
  targetLatencyMs: number
  /**
   * Ceiling and starting value of the adaptive bound on ingest requests in flight per process,
   * counted from their parsed headers (`INGEST_MAX_INFLIGHT_REQUESTS`, 0: no bound); see
   * ingest/inflight-limit.ts.
   */
  maxInflightRequests: number
  /** `Retry-After` of a shed request, s (`INGEST_SHED_RETRY_AFTER`). */
  shedRetryAfterSeconds: number
  /** Longest an envelope-header-only credential line may be, bytes (decoded). */
  maxAuthLine: number
  /** Time to receive a whole request, headers and body; then 408 (`REQUEST_TIMEOUT_MS`). */
  requestTimeoutMs: number
  /** Time to receive the request headers (`HEADERS_TIMEOUT_MS`). */
  headersTimeoutMs: number
  /** An idle socket is closed after this long (`IDLE_TIMEOUT_MS`). */
  idleTimeoutMs: number
  /** Open connections accepted at once; more are closed (`MAX_CONNECTIONS`, 0: no cap). */
  maxConnections: number
  /** Ingest refuses new data (503) while the data directory's disk has less free space (`DISK_MIN_FREE_BYTES`, 0: off). */
  diskMinFreeBytes: number
  /** Alert webhooks may target private, loopback and link-local addresses (`ALERT_ALLOW_PRIVATE_TARGETS=1`). */
  allowPrivateWebhooks: boolean
}

/** Protection defaults; why each value: docs/ingest-protection.md. */
export const DEFAULT_PROTECTION: Protection = {
  maxInflightBytes: 256 * 1024 * 1024,
  maxQueuedUnits: 1000,
  targetLatencyMs: 150,
  maxInflightRequests: 256,
  shedRetryAfterSeconds: 2,
  maxAuthLine: 16 * 1024,
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  idleTimeoutMs: 65_000,
  maxConnections: 4096,
  diskMinFreeBytes: 256 * 1024 * 1024,
  allowPrivateWebhooks: false,
}

function protectionFrom(env: Record<string, string | undefined>): Protection {
  const d = DEFAULT_PROTECTION
  const int = (name: string, fallback: number) => intFrom(env[name], fallback, name)
  return Object.freeze({
    maxInflightBytes: int('INGEST_MAX_INFLIGHT_BYTES', d.maxInflightBytes),
    maxQueuedUnits: int('INGEST_MAX_QUEUED_UNITS', d.maxQueuedUnits),
    targetLatencyMs: int('INGEST_TARGET_LATENCY_MS', d.targetLatencyMs),
    maxInflightRequests: int('INGEST_MAX_INFLIGHT_REQUESTS', d.maxInflightRequests),
    shedRetryAfterSeconds: int('INGEST_SHED_RETRY_AFTER', d.shedRetryAfterSeconds),
    maxAuthLine: d.maxAuthLine,
    requestTimeoutMs: int('REQUEST_TIMEOUT_MS', d.requestTimeoutMs),
    headersTimeoutMs: int('HEADERS_TIMEOUT_MS', d.headersTimeoutMs),
    idleTimeoutMs: int('IDLE_TIMEOUT_MS', d.idleTimeoutMs),
    maxConnections: int('MAX_CONNECTIONS', d.maxConnections),
    diskMinFreeBytes: int('DISK_MIN_FREE_BYTES', d.diskMinFreeBytes),
    allowPrivateWebhooks: isTrue(env['ALERT_ALLOW_PRIVATE_TARGETS']),
  })
}

/** Where e-mail alerts are sent from (`SMTP_HOST`, `SMTP_PORT`, `SMTP_SECURE`, …). */
export interface SmtpConfig {
  host: string
  port: number
  /** Implicit TLS (port 465); otherwise STARTTLS when the server offers it. */
  secure: boolean
  from: string
  user: string | undefined
  password: string | undefined
}

/** How the alert worker paces itself. */
export interface AlertTiming {
  /** How often a worker looks for due deliveries (new ones also wake it at once), ms. */
  pollMs: number
  /** First retry delay; doubled per attempt up to `backoffMaxMs`. */
  backoffBaseMs: number
  backoffMaxMs: number
  /** Attempts before a delivery is given up as `failed`. */
  maxAttempts: number
  /** How long a claim holds a delivery; longer than `sendTimeoutMs`. */
  leaseMs: number
  sendTimeoutMs: number
}

/** Alert timing defaults: retries after 30 s, 1, 2, 4 … min, for about two hours. */
export const DEFAULT_ALERT_TIMING: AlertTiming = {
  pollMs: 1000,
  backoffBaseMs: 30_000,
  backoffMaxMs: 3_600_000,
  maxAttempts: 8,
  leaseMs: 60_000,
  sendTimeoutMs: 10_000,
}

const isTrue = (v: string | undefined) => ['1', 'true', 'yes'].includes((v ?? '').toLowerCase())

function smtpFrom(env: Record<string, string | undefined>): SmtpConfig | undefined {
  const host = env['SMTP_HOST']
  if (host === undefined || host === '') return undefined
  const secure = isTrue(env['SMTP_SECURE'])
  return {
    host,
    port: intFrom(env['SMTP_PORT'], secure ? 465 : 587, 'SMTP_PORT'),
    secure,
    from: env['SMTP_FROM'] || 'ingest@localhost',
    user: env['SMTP_USER'] || undefined,
    password: env['SMTP_PASSWORD'] || undefined,
  }
}

const MiB = 1024 * 1024

/** Relay-like defaults; the envelope cap is lower than Relay's 200 MiB because we store no attachments. */
export const DEFAULT_LIMITS: Limits = {
  maxCompressedBody: 20 * MiB,
  maxEnvelope: 100 * MiB,
  maxEvent: 1 * MiB,
  maxSmallItem: 100 * 1024,
}

function intFrom(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0)
    throw new Error(`${name} must be a non-negative integer, got "${value}"`)
  return n
}

/** `DATABASE_URL` must name PostgreSQL: any other scheme is a typo better caught at start-up. */
function postgresUrlFrom(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined
  if (!/^postgres(ql)?:\/\//.test(value))
    throw new Error('DATABASE_URL must start with postgres:// or postgresql://')
  return value
}

/** Builds the typed config from an environment map; only `main.ts` passes `process.env`. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const dataDir = resolve(env['DATA_DIR'] ?? './data')
  return Object.freeze({
    host: env['HOST'] ?? '127.0.0.1',
    port: intFrom(env['PORT'], 8000, 'PORT'),
    dataDir,
    databasePath: env['DATABASE_PATH'] ?? resolve(dataDir, 'ingest.sqlite'),
    databaseUrl: postgresUrlFrom(env['DATABASE_URL']),
    databasePoolSize: Math.max(1, intFrom(env['DATABASE_POOL_SIZE'], 10, 'DATABASE_POOL_SIZE')),
    publicUrl: env['PUBLIC_URL'] || undefined,
    adminEmail: env['INGEST_ADMIN_EMAIL'] || undefined,
    adminPassword: env['INGEST_ADMIN_PASSWORD'] || undefined,
    adminToken: env['INGEST_ADMIN_TOKEN'] || undefined,
    trustProxy: ['1', 'true', 'yes'].includes((env['TRUST_PROXY'] ?? '').toLowerCase()),
    limits: Object.freeze({
      maxCompressedBody: intFrom(
        env['MAX_COMPRESSED_BODY'],
        DEFAULT_LIMITS.maxCompressedBody,
        'MAX_COMPRESSED_BODY',
      ),
      maxEnvelope: intFrom(
        env['MAX_ENVELOPE_SIZE'],
        DEFAULT_LIMITS.maxEnvelope,
        'MAX_ENVELOPE_SIZE',
      ),
      maxEvent: intFrom(env['MAX_EVENT_SIZE'], DEFAULT_LIMITS.maxEvent, 'MAX_EVENT_SIZE'),
      maxSmallItem: DEFAULT_LIMITS.maxSmallItem,
    }),
    commitDelayMs: intFrom(env['COMMIT_DELAY_MS'], 2, 'COMMIT_DELAY_MS'),
    digestThreads: Math.min(16, intFrom(env['DIGEST_THREADS'], 0, 'DIGEST_THREADS')),
    logLevel: env['LOG_LEVEL'] ?? 'info',
    cronClockIntervalMs: intFrom(env['CRON_CLOCK_INTERVAL_MS'], 10_000, 'CRON_CLOCK_INTERVAL_MS'),
    testClock: env['INGEST_TEST_CLOCK'] === '1',
    smtp: smtpFrom(env),
    protection: protectionFrom(env),
    retentionDays: intFrom(env['RETENTION_DAYS'], 90, 'RETENTION_DAYS'),
    metrics: Object.freeze({
      enabled: (env['METRICS_ENABLED'] ?? '1') !== '0',
      host: env['METRICS_HOST'] || '127.0.0.1',
      port: intFrom(env['METRICS_PORT'], 9464, 'METRICS_PORT'),
      token: env['METRICS_TOKEN'] || undefined,
      projectLabels: Math.min(
        1000,
        intFrom(env['METRICS_PROJECT_LABELS'], 0, 'METRICS_PROJECT_LABELS'),
      ),
    }),
    sourceMapCacheBytes:
      intFrom(env['SOURCE_MAP_CACHE_MB'], 128, 'SOURCE_MAP_CACHE_MB') * 1024 * 1024,
    shutdown: Object.freeze({
      drainMs: intFrom(env['SHUTDOWN_DRAIN_MS'], 5_000, 'SHUTDOWN_DRAIN_MS'),
      timeoutMs: intFrom(env['SHUTDOWN_TIMEOUT_MS'], 30_000, 'SHUTDOWN_TIMEOUT_MS'),
    }),
    alerts: Object.freeze({
      ...DEFAULT_ALERT_TIMING,
      pollMs: intFrom(env['ALERT_POLL_MS'], DEFAULT_ALERT_TIMING.pollMs, 'ALERT_POLL_MS'),
      backoffBaseMs: intFrom(
        env['ALERT_BACKOFF_MS'],
        DEFAULT_ALERT_TIMING.backoffBaseMs,
        'ALERT_BACKOFF_MS',
      ),
      maxAttempts: intFrom(
        env['ALERT_MAX_ATTEMPTS'],
        DEFAULT_ALERT_TIMING.maxAttempts,
        'ALERT_MAX_ATTEMPTS',
      ),
    }),
  })
}
