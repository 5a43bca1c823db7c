import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { SQLITE_ONLY_TESTS } from './server/test/support/sqlite-only.ts'

// The tests of the storage layer and of the PostgreSQL live feed: the store contract suites
// on both backends, each backend's own tests, the shared SQL port. They start PostgreSQL.
const STORE_TESTS = ['server/src/store/**/*.test.ts', 'server/src/live/**/*.test.ts']

// Vitest runs the TypeScript sources in each test process, but worker threads those sources
// start (the SQLite writer, the digest pool) load `.ts` files with Node's own loader: this
// registers tsx in them (see the file).
const execArgv = [
  '--import',
  fileURLToPath(new URL('./scripts/tsx-in-worker-threads.mjs', import.meta.url)),
]

// One invocation, five projects (see docs/testing.md): units that need no database server,
// the store on both backends, in-process HTTP contract tests through app.inject() on SQLite and
// again on PostgreSQL, and the conformance suite that drives stock SDKs against the real server
// started as a child process.
export default defineConfig({
  test: {
    maxWorkers: 2,
    projects: [
      {
        test: {
          name: 'unit',
          execArgv,
          include: ['server/src/**/*.test.ts', 'conformance/src/harness/**/*.test.ts'],
          exclude: STORE_TESTS,
        },
      },
      {
        test: {
          name: 'store',
          execArgv,
          include: STORE_TESTS,
          globalSetup: ['scripts/postgres/vitest-global-setup.ts'],
        },
      },
      {
        test: {
          name: 'integration',
          execArgv,
          include: ['server/test/**/*.test.ts', 'scripts/**/*.test.ts'],
          globalSetup: ['scripts/postgres/vitest-global-setup.ts'],
          testTimeout: 20_000,
        },
      },
      {
        // The same HTTP tests on PostgreSQL (server/test/support/test-backend.ts).
        test: {
          name: 'integration-postgres',
          execArgv,
          include: ['server/test/**/*.test.ts'],
          // The cluster tests start their own PostgreSQL-backed nodes in either project: once.
          exclude: [...SQLITE_ONLY_TESTS.map((t) => t.file), 'server/test/cluster/**'],
          env: { TEST_DATABASE: 'postgres' },
          globalSetup: ['scripts/postgres/vitest-global-setup.ts'],
          // Seeding 10 000 issues through the store takes ≈19 s on PostgreSQL on a busy 2-core CI.
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'conformance',
          execArgv,
          include: ['conformance/src/**/*.test.ts'],
          exclude: ['conformance/src/harness/**'],
          globalSetup: ['conformance/src/harness/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
})
