import type { FastifyInstance } from 'fastify'
import { afterEach, beforeEach, vi } from 'vitest'
import { buildApp } from '../../src/app.ts'
import type { Config } from '../../src/config.ts'
import { testBackend } from './test-backend.ts'
import { testConfig } from './test-config.ts'

/** Auth header for the test admin token. */
export const ADMIN = { authorization: 'Bearer test-admin-token' }

/** A project created through the API, with its key. */
export interface TestProject {
  id: number
  dsn: string
  key: string
}

/**
 * Builds an app for `inject()` tests on an empty database (in-memory SQLite, or PostgreSQL
 * under `TEST_DATABASE=postgres`); close it in afterEach/afterAll.
 */
export async function testApp(overrides: Partial<Config> = {}): Promise<FastifyInstance> {
  const { config, store, cleanup } = await testBackend(testConfig(overrides))
  const app = await buildApp(config, store === undefined ? {} : { store })
  app.addHook('onClose', cleanup)
  return app
}

/**
 * Freezes `Date` (only; timers keep running) at `now` for each test of the file. Call it before
 * the file's own hooks: hooks run in stack order, so apps are built and closed in frozen time.
 */
export function freezeDate(now: number): void {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(now)
  })
  afterEach(() => {
    vi.useRealTimers()
  })
}

/** Creates a project through the management API. */
export async function createProject(app: FastifyInstance, name = 'test'): Promise<TestProject> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/0/projects/',
    headers: ADMIN,
    payload: { name },
  })
  if (res.statusCode !== 201)
    throw new Error(`project create failed: ${res.statusCode} ${res.body}`)
  const body = res.json<{ id: number; dsn: string }>()
  const key = new URL(body.dsn).username
  return { id: body.id, dsn: body.dsn, key }
}

/** The X-Sentry-Auth header value for a key, as Python sends it. */
export const sentryAuth = (key: string) =>
  `Sentry sentry_key=${key}, sentry_version=7, sentry_client=sentry.python/2.68.0`

/** A 32-hex event id from a number, for readable tests. */
export const eid = (n: number) => n.toString(16).padStart(32, '0')

/** Builds a JS-style envelope (no lengths, no trailing newline) holding one event. */
export function eventEnvelope(
  event: Record<string, unknown>,
  header: Record<string, unknown> = {},
): string {
  return `${JSON.stringify({ event_id: event['event_id'], ...header })}\n{"type":"event"}\n${JSON.stringify(event)}`
}

/** An envelope of `[type, payload]` items (payload JSON-encoded unless already a string). */
export function envelopeOf(
  items: [string, unknown][],
  header: Record<string, unknown> = {},
): string {
  const parts = [JSON.stringify(header)]
  for (const [type, payload] of items) {
    parts.push(
      JSON.stringify({ type }),
      typeof payload === 'string' ? payload : JSON.stringify(payload),
    )
  }
  return parts.join('\n')
}

/** Posts an envelope with the project's key in X-Sentry-Auth, Python style. */
export function postEnvelope(app: FastifyInstance, projectId: number, key: string, body: string) {
  return app.inject({
    method: 'POST',
    url: `/api/${projectId}/envelope/`,
    headers: { 'x-sentry-auth': sentryAuth(key) },
    payload: body,
  })
}

/** Posts items in one envelope to a project's envelope endpoint with its key. */
export function sendItems(
  app: FastifyInstance,
  project: { id: number; key: string },
  items: [string, unknown][],
  header: Record<string, unknown> = {},
) {
  return postEnvelope(app, project.id, project.key, envelopeOf(items, header))
}

/** Lists a project's issues through the API. */
export async function issuesOf(app: FastifyInstance, projectId: number) {
  const res = await app.inject({
    method: 'GET',
    url: `/api/0/projects/${projectId}/issues/`,
    headers: ADMIN,
  })
  return res.json<
    { id: number; title: string; count: number; status: string; culprit: string; level: string }[]
  >()
}
