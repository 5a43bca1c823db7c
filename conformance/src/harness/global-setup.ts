/**
 * Vitest global setup for the conformance project: one real server per run, shared by all
 * test files (each test creates its own project, so files stay independent and parallel).
 */
import type {} from 'vitest'
import type { TestProject } from 'vitest/node'
import { startServer } from './server.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    /** Base URL of the server under test. */
    serverUrl: string
    /** Bearer token for its management API. */
    adminToken: string
  }
}

/** Starts the server, hands its URL and token to the tests, and stops it after the run. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startServer()
  project.provide('serverUrl', server.url)
  project.provide('adminToken', server.adminToken)
  return () => server.stop()
}
