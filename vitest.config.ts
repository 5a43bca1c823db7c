import { defineConfig } from 'vitest/config'

// One invocation, three projects (see README "Tests"): pure units, in-process HTTP contract
// tests through app.inject(), and the conformance suite that drives stock SDKs against the
// real server started as a child process.
export default defineConfig({
  test: {
    maxWorkers: 2,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['server/src/**/*.test.ts', 'conformance/src/harness/**/*.test.ts'],
          globalSetup: ['scripts/postgres/vitest-global-setup.ts'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['server/test/**/*.test.ts', 'scripts/**/*.test.ts'],
          globalSetup: ['scripts/postgres/vitest-global-setup.ts'],
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'conformance',
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
