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
  /** Public base URL written into DSNs; defaults to the listening address. */
  publicUrl: string | undefined
  adminEmail: string | undefined
  adminPassword: string | undefined
  /** Extra admin API token accepted for automation (`INGEST_ADMIN_TOKEN`). */
  adminToken: string | undefined
  limits: Limits
  /** Longest a request waits for its group commit before the batch is flushed anyway, ms. */
  commitDelayMs: number
  logLevel: string
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

/** Builds the typed config from an environment map; only `main.ts` passes `process.env`. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const dataDir = resolve(env['DATA_DIR'] ?? './data')
  return Object.freeze({
    host: env['HOST'] ?? '127.0.0.1',
    port: intFrom(env['PORT'], 8000, 'PORT'),
    dataDir,
    databasePath: env['DATABASE_PATH'] ?? resolve(dataDir, 'ingest.sqlite'),
    publicUrl: env['PUBLIC_URL'] || undefined,
    adminEmail: env['INGEST_ADMIN_EMAIL'] || undefined,
    adminPassword: env['INGEST_ADMIN_PASSWORD'] || undefined,
    adminToken: env['INGEST_ADMIN_TOKEN'] || undefined,
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
    logLevel: env['LOG_LEVEL'] ?? 'info',
  })
}

/** A config for in-process tests: in-memory database, fixed admin token. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    ...loadConfig({ DATA_DIR: '/tmp/ingest-test-unused', DATABASE_PATH: ':memory:' }),
    adminToken: 'test-admin-token',
    logLevel: 'silent',
    ...overrides,
  }
}
