import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, expect, it } from 'vitest'
import {
  ADMIN,
  createProject,
  eid,
  eventEnvelope,
  postEnvelope,
  testApp,
} from './support/helpers.ts'
import { createUser, signIn, type UiClient } from './support/ui-helpers.ts'

// Every route the app registers, read with hostile path parameters and query strings (numbers
// past 2^53, invalid percent-encoding, NUL, lone surrogates as UTF-8, repeated keys, huge
// values) and written with hostile bodies: each answers below 500, as API caller and as
// signed-in browser.

const PATH_VALUES = [
  '0',
  '-1',
  '1e308',
  '99999999999999999999',
  'abc',
  '%00',
  '%ED%A0%80',
  '%FF',
  '%',
  '..%2F..',
  'x'.repeat(3000),
]

const QUERIES = [
  '?limit=0',
  '?limit=1e308&cursor=%%%',
  `?cursor=${'A'.repeat(5000)}`,
  '?query=%00&environment=%ED%A0%80&release=%FF',
  '?query=a&query=b&status=a&status=b',
  '?status=bogus&for_review=maybe&component[]=x',
  '?since=-1&until=1e308',
  '?since=abc&until=-0&environment=',
  '?tab=%FF&page=-1',
  `?query=${'q'.repeat(5000)}`,
]

let app: FastifyInstance
let ui: UiClient
const real: Record<string, string> = {}

beforeAll(async () => {
  app = await testApp()
  const p = await createProject(app)
  await createUser(app)
  ui = await signIn(app)
  const res = await postEnvelope(
    app,
    p.id,
    p.key,
    eventEnvelope({ event_id: eid(1), message: 'hello', release: 'r1' }),
  )
  expect(res.statusCode).toBe(200)
  const ev = await app.inject({ url: `/api/0/projects/${p.id}/events/${eid(1)}/`, headers: ADMIN })
  real['projectId'] = String(p.id)
  real['issueId'] = String(ev.json<{ issue_id: number }>().issue_id)
  real['eventId'] = eid(1)
  real['release'] = 'r1'
})
afterAll(() => app.close())

/** The route's URL with each `:param` replaced by `value(param)`. */
function fill(url: string, value: (param: string) => string): string {
  return url.replace(/:([A-Za-z]+)/g, (_, name: string) => value(name))
}

it('answers every GET route with hostile parameters below 500', async () => {
  await app.ready()
  const routes = app.routeTable.filter((r) => r.method === 'GET' && !r.url.includes('*'))
  expect(routes.length).toBeGreaterThan(20)
  let requests = 0
  for (const route of routes) {
    const urls = new Set<string>()
    const base = fill(route.url, (n) => real[n] ?? '1')
    for (const q of QUERIES) urls.add(base + q)
    if (route.url.includes(':'))
      for (const v of PATH_VALUES) {
        urls.add(fill(route.url, () => v))
        urls.add(fill(route.url, (n) => (n === 'projectId' ? (real[n] ?? v) : v)))
      }
    for (const url of urls) {
      const asApi = await app.inject({ url, headers: ADMIN })
      expect(
        asApi.statusCode,
        `API ${url.slice(0, 200)}: ${asApi.body.slice(0, 200)}`,
      ).toBeLessThan(500)
      const asUi = await ui.get(url)
      expect(asUi.statusCode, `UI ${url.slice(0, 200)}: ${asUi.body.slice(0, 200)}`).toBeLessThan(
        500,
      )
      requests += 2
    }
  }
  expect(requests).toBeGreaterThan(500)
}, 240_000)

const BODIES: [string, string][] = [
  ['application/json', '{"broken'],
  ['application/json', 'null'],
  ['application/json', '[]'],
  ['application/json', '"text"'],
  ['application/json', '{"status":{"$gt":1},"name":["x"],"limit":1e308,"__proto__":{"a":1}}'],
  ['application/json', `{"name":"${'n'.repeat(100_000)}","email":"\\u0000@\\ud800"}`],
  ['application/x-www-form-urlencoded', 'a=%FF&b=%&_csrf=x'],
  ['text/plain', '\u0000'],
]

it('answers every write route with hostile bodies below 500', async () => {
  const routes = app.routeTable
    .filter((r) => r.method !== 'GET' && r.method !== 'HEAD' && r.method !== 'OPTIONS')
    // Deletions last, so the other routes still find what they act on.
    .sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'))
  expect(routes.length).toBeGreaterThan(10)
  for (const route of routes) {
    const url = fill(route.url, (n) => real[n] ?? '1')
    for (const [type, payload] of BODIES) {
      const res = await app.inject({
        method: route.method as 'POST',
        url,
        headers: { ...ADMIN, 'content-type': type },
        payload,
      })
      expect(res.statusCode, `${route.method} ${url}: ${res.body.slice(0, 200)}`).toBeLessThan(500)
      const asUi = await ui.post(url, { a: payload })
      expect(asUi.statusCode, `UI ${route.method} ${url}: ${asUi.body.slice(0, 200)}`).toBeLessThan(
        500,
      )
    }
  }
}, 240_000)
