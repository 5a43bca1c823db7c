import type {} from 'vitest'
import type { TestProject } from 'vitest/node'
import { startTempPostgres } from './temp-postgres.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    /** Superuser URL of the run's private PostgreSQL; each test file creates its own database. */
    postgresUrl: string
  }
}

/**
 * Vitest global setup: one real PostgreSQL (Debian's package, temp dir, free port) for the
 * whole run, so PostgreSQL-backed suites never depend on a server the developer happens to run.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const pg = await startTempPostgres()
  project.provide('postgresUrl', pg.url)
  return () => pg.stop()
}
