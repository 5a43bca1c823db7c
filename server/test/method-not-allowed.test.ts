import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { ADMIN, testApp } from './support/helpers.ts'

// A method a path is not routed for answers 405 with `Allow` (RFC 9110), before any body is
// read: QUERY without a Content-Type used to be refused 400 by the body parser. A path no route
// takes stays a 404, and an over-long path parameter stays the router's documented 414.

let app: FastifyInstance
beforeAll(async () => {
  app = await testApp()
})
afterAll(async () => {
  await app?.close()
})

it.each([
  ['QUERY', '/api/0/projects/1/', 'GET, HEAD, OPTIONS, PUT'],
  ['PATCH', '/api/0/projects/1', 'GET, HEAD, OPTIONS, PUT'],
  ['DELETE', '/api/0/projects/999999/keys/', 'GET, HEAD, OPTIONS, POST'],
  ['PUT', '/api/0/openapi.json', 'GET, HEAD, OPTIONS'],
  ['QUERY', '/projects/1/issues', 'GET, HEAD, OPTIONS'],
])('%s %s: 405 with Allow: %s', async (method, url, allow) => {
  const res = await app.inject({ method: method as 'GET', url, headers: ADMIN })
  expect(res.statusCode, res.body).toBe(405)
  expect(res.headers['allow']).toBe(allow)
  expect(res.json()).toEqual({ detail: `${method} is not allowed here; allowed: ${allow}` })
})

it('a path no route takes is a 404 for every method, body or not', async () => {
  for (const method of ['GET', 'QUERY', 'POST'] as const) {
    const res = await app.inject({
      method: method as 'GET',
      url: '/api/0/nothing/here/',
      headers: ADMIN,
    })
    expect(res.statusCode).toBe(404)
    expect(res.headers['allow']).toBeUndefined()
    expect(res.json()).toEqual({ detail: `no route for ${method} /api/0/nothing/here/` })
  }
})

it('a routed method is untouched, and an over-long path parameter is still 414', async () => {
  const ok = await app.inject({ url: '/api/0/projects/', headers: ADMIN })
  expect(ok.statusCode).toBe(200)
  const long = await app.inject({
    url: `/api/0/projects/1/monitors/${'a'.repeat(300)}/`,
    headers: ADMIN,
  })
  expect(long.statusCode).toBe(414)
})
