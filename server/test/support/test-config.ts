import { type Config, DEFAULT_PROTECTION, loadConfig } from '../../src/config.ts'

/**
 * A config for in-process tests: in-memory database, fixed admin token. Test support, kept out
 * of the production config module.
 */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    ...loadConfig({ DATA_DIR: '/tmp/ingest-test-unused', DATABASE_PATH: ':memory:' }),
    adminToken: 'test-admin-token',
    logLevel: 'silent',
    // Tests post alerts to receivers on loopback; the guard itself is tested with it off.
    protection: { ...DEFAULT_PROTECTION, allowPrivateWebhooks: true, diskMinFreeBytes: 0 },
    // Off: a sweep at start-up would race tests that write fixed old timestamps.
    retentionDays: 0,
    ...overrides,
  }
}
