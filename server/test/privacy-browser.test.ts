import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build } from 'esbuild'
import type { FastifyInstance } from 'fastify'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium, requireChromium } from './support/chromium.ts'
import { fileApp } from './support/database-dump.ts'
import { ADMIN, createProject, type TestProject } from './support/helpers.ts'
import { type StaticPages, serveStaticPages } from './support/static-pages.ts'
import { createUser, signIn } from './support/ui-helpers.ts'

/**
 * A browser app's secrets: an app bundled with stock @sentry/browser, loaded in headless
 * Chromium from a URL whose query holds a card number, records a breadcrumb, an extra and a user
 * field that hold secrets, and reports an error. None of the secrets is in the database
 * (payloads decoded), in an API read or on the issue page; remarks say what was removed.
 * SQLite and PostgreSQL (the integration projects).
 */

const ROOT = join(import.meta.dirname, '../..')

/** One secret per place the app puts one; none may be found anywhere afterwards. */
const SECRETS = {
  // A card number: the SDK itself filters query keys that name a secret (`access_token`…).
  urlQuery: '5555555555554444',
  crumbMessage: 'crumb-secret-7f2',
  crumbData: 'crumbdata-secret-7f3',
  extra: 'extra-secret-7f4',
  user: 'user-secret-7f5',
  card: '4111 1111 1111 1111',
}
/** Kept values beside them: the positive controls of every search below. */
const KEPT = 'kept-visible-7f6'

let app: FastifyInstance
let dump: () => Promise<string>
let p: TestProject
let browser: Browser
let pages: StaticPages | undefined
let dir: string

beforeAll(async () => {
  requireChromium()
  ;({ app, dump } = await fileApp())
  p = await createProject(app, 'browser-secrets')
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const dsn = `http://${p.key}@${new URL(base).host}/${p.id}`
  dir = await mkdtemp(join(tmpdir(), 'privacy-browser-'))
  await writeFile(
    join(dir, 'entry.js'),
    `import * as Sentry from '@sentry/browser'
Sentry.init({ dsn: ${JSON.stringify(dsn)} })
window.__send = async () => {
  Sentry.addBreadcrumb({
    category: 'auth',
    message: 'user typed password=${SECRETS.crumbMessage}',
    data: { authorization: '${SECRETS.crumbData}', screen: '${KEPT}' },
  })
  Sentry.setExtra('stripe_api_key', '${SECRETS.extra}')
  Sentry.setExtra('note', 'paid with ${SECRETS.card}')
  Sentry.setExtra('plain', '${KEPT}')
  Sentry.setUser({ id: 'u-17', session_token: '${SECRETS.user}' })
  try {
    throw new Error('checkout button failed')
  } catch (e) {
    Sentry.captureException(e)
  }
  return Sentry.flush(10000)
}
`,
  )
  await build({
    entryPoints: [join(dir, 'entry.js')],
    bundle: true,
    format: 'iife',
    outfile: join(dir, 'app.js'),
    logLevel: 'silent',
    nodePaths: [join(ROOT, 'node_modules')],
  })
  await writeFile(
    join(dir, 'index.html'),
    '<!doctype html><html><body><script src="app.js"></script></body></html>',
  )
  pages = await serveStaticPages((path) => {
    const file = path || 'index.html'
    return file === 'index.html' || file === 'app.js' ? join(dir, file) : undefined
  })
  browser = await launchChromium()
}, 120_000)
afterAll(async () => {
  await browser?.close()
  await pages?.close()
  await app?.close()
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
})

function expectNoSecret(where: string, text: string): void {
  for (const [name, secret] of Object.entries(SECRETS))
    expect(text.includes(secret), `${name} found in ${where}`).toBe(false)
}

describe('a browser app with stock @sentry/browser', () => {
  it('leaves none of its secrets in the database, the API or the issue page', async () => {
    const page = await browser.newPage()
    try {
      await page.goto(`${pages?.url}/index.html?pay_ref=${SECRETS.urlQuery}&view=${KEPT}`)
      // Page-side code as text: the test project has no DOM types.
      await page.waitForFunction("typeof window.__send === 'function'")
      expect(await page.evaluate('window.__send()')).toBe(true)
    } finally {
      await page.close()
    }

    const issues = await app.inject({ url: `/api/0/projects/${p.id}/issues/`, headers: ADMIN })
    const list = issues.json<{ id: number; title: string }[]>()
    expect(list.map((i) => i.title)).toEqual(['Error: checkout button failed'])
    expectNoSecret('the issue list', issues.body)
    const issueId = list[0]?.id
    const events = await app.inject({ url: `/api/0/issues/${issueId}/events/`, headers: ADMIN })
    expectNoSecret("the issue's events", events.body)
    const [summary] = events.json<{ event_id: string }[]>()
    const one = await app.inject({
      url: `/api/0/projects/${p.id}/events/${summary?.event_id}/`,
      headers: ADMIN,
    })
    expect(one.statusCode).toBe(200)
    expectNoSecret('the event API', one.body)
    // The page URL's query, moved into query_string as pairs (Relay's normalisation).
    expect(one.body).toContain(`"query_string":[["pay_ref","[Filtered]"],["view","${KEPT}"]]`)
    const event = one.json<Record<string, unknown>>()
    // The SDK sent each secret (the remarks say where), and the server removed it.
    expect(event['_meta']).toMatchObject({
      request: { query_string: { 0: { 1: { '': { rem: [['@creditcard', 's']] } } } } },
      extra: {
        stripe_api_key: { '': { rem: [['@password', 's']] } },
        note: { '': { rem: [['@creditcard', 's']] } },
      },
      user: { session_token: { '': { rem: [['@password', 's']] } } },
    })
    const crumbs = JSON.stringify(
      (event['_meta'] as Record<string, unknown> | undefined)?.['breadcrumbs'],
    )
    expect(crumbs).toContain('"authorization":{"":{"rem":[["@password","s"]]}}')
    expect(crumbs).toContain('"message":{"":{"rem":[["@password","s"]]}}')

    await createUser(app)
    const ui = await signIn(app)
    const html = await ui.get(`/issues/${issueId}`)
    expect(html.statusCode).toBe(200)
    expectNoSecret('the issue page', html.body)
    expect(html.body).toContain('Data removed')

    const db = await dump()
    expect(db).toContain(KEPT)
    expect(db).toContain('checkout button failed')
    expectNoSecret('the database', db)
  })
})
