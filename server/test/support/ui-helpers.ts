import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, expect } from 'vitest'
import { hashPassword } from '../../src/accounts/passwords.ts'
import {
  ADMIN,
  createProject,
  eventEnvelope,
  sentryAuth,
  type TestProject,
  testApp,
} from './helpers.ts'

/** A browser-like signed-in client for `inject()` tests of the UI. */
export interface UiClient {
  /** The `cookie` header to send (session cookie). */
  cookie: string
  /** The session's CSRF token, as the pages put it in every form. */
  csrf: string
  get(url: string): Promise<LightMyRequestResponse>
  /** Posts a form with the CSRF token added (unless `csrf: false`). */
  post(
    url: string,
    form: Record<string, string | string[]>,
    opts?: { csrf?: boolean },
  ): Promise<LightMyRequestResponse>
}

/** The value of one cookie from a response's set-cookie headers. */
export function cookieValue(res: LightMyRequestResponse, name: string): string | undefined {
  return res.cookies.find((c) => c.name === name)?.value
}

/** The hidden `_csrf` value of the first form in a page. */
export function csrfOf(page: string): string {
  const m = /name="_csrf" value="([^"]*)"/.exec(page)
  if (m?.[1] === undefined) throw new Error('page has no CSRF field')
  return m[1]
}

/** URL-encodes a form (repeated keys for arrays). */
export function formBody(form: Record<string, string | string[]>): string {
  const p = new URLSearchParams()
  for (const [k, v] of Object.entries(form)) {
    for (const x of Array.isArray(v) ? v : [v]) p.append(k, x)
  }
  return p.toString()
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

/** Creates a user directly in the store. */
export async function createUser(
  app: FastifyInstance,
  email = 'ui@example.com',
  password = 'correct horse battery',
  isAdmin = true,
) {
  return app.services.store.createUser(email, await hashPassword(password), isAdmin)
}

/** Signs in through the login form, the way a browser does, and returns a client. */
export async function signIn(
  app: FastifyInstance,
  email = 'ui@example.com',
  password = 'correct horse battery',
): Promise<UiClient> {
  const form = await app.inject({ method: 'GET', url: '/login' })
  const loginCsrf = cookieValue(form, 'ingest_login_csrf') ?? ''
  const res = await app.inject({
    method: 'POST',
    url: '/login',
    headers: { ...FORM, cookie: `ingest_login_csrf=${loginCsrf}` },
    payload: formBody({ email, password, _csrf: csrfOf(form.body) }),
  })
  const session = cookieValue(res, 'ingest_session')
  if (res.statusCode !== 303 || session === undefined)
    throw new Error(`sign-in failed: ${res.statusCode} ${res.body.slice(0, 300)}`)
  const cookie = `ingest_session=${session}`
  const page = await app.inject({ method: 'GET', url: '/projects', headers: { cookie } })
  const csrf = csrfOf(page.body)
  return {
    cookie,
    csrf,
    get: (url) => app.inject({ method: 'GET', url, headers: { cookie } }),
    post: (url, body, opts = {}) =>
      app.inject({
        method: 'POST',
        url,
        headers: { ...FORM, cookie },
        payload: formBody(opts.csrf === false ? body : { ...body, _csrf: csrf }),
      }),
  }
}

let seq = 0

/** Ingests one event through the envelope endpoint with a key; returns its event id. */
export async function ingest(
  app: FastifyInstance,
  projectId: number,
  key: string,
  event: Record<string, unknown>,
): Promise<string> {
  seq++
  const eventId = (Date.now() * 1000 + seq).toString(16).padStart(32, '0').slice(-32)
  const res = await app.inject({
    method: 'POST',
    url: `/api/${projectId}/envelope/`,
    headers: { 'x-sentry-auth': sentryAuth(key) },
    payload: eventEnvelope({ event_id: eventId, platform: 'javascript', level: 'error', ...event }),
  })
  if (res.statusCode !== 200) throw new Error(`ingest failed: ${res.statusCode} ${res.body}`)
  return eventId
}

/** An app with one project and a signed-in admin browser. */
export interface RenderingApp {
  app: FastifyInstance
  project: TestProject
  ui: UiClient
}

/**
 * The set-up of the tests that store odd data and then read every page and API route of it:
 * one app, one project, one signed-in admin.
 */
export async function renderingApp(): Promise<RenderingApp> {
  const app = await testApp()
  const project = await createProject(app)
  await createUser(app)
  return { app, project, ui: await signIn(app) }
}

/**
 * {@link renderingApp} for the tests of one file: set up before they run, closed after; the
 * returned object is filled in by `beforeAll`.
 */
export function renderingAppPerFile(): RenderingApp {
  const r = {} as RenderingApp
  beforeAll(async () => {
    Object.assign(r, await renderingApp())
  })
  afterAll(() => r.app.close())
  return r
}

/**
 * Reads `url` as the API admin (bearer token) or, with `asUi`, as the signed-in browser, and
 * fails the test on any 5xx (`what` says which stored data it was); returns the status.
 */
export async function readBelow500(
  r: RenderingApp,
  url: string,
  asUi: boolean,
  what = '',
): Promise<number> {
  const res = asUi ? await r.ui.get(url) : await r.app.inject({ url, headers: ADMIN })
  expect(
    res.statusCode,
    `${what}${what === '' ? '' : ': '}${url}: ${res.body.slice(0, 300)}`,
  ).toBeLessThan(500)
  return res.statusCode
}
