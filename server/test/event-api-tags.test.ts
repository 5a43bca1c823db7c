import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ADMIN,
  createProject,
  eid,
  sendItems,
  type TestProject,
  testApp,
} from './support/helpers.ts'

// An event's API answer lists its tags as Sentry's stored event does: those derived from its
// fields (level, url, browser, os, user …) and the SDK's own, the same list its page shows.
describe("an event's tags in the API", () => {
  let app: FastifyInstance
  let p: TestProject

  beforeAll(async () => {
    app = await testApp()
    p = await createProject(app)
  })
  afterAll(() => app.close())

  it("hold the derived tags beside the SDK ones, in the event and in its issue's events", async () => {
    const ua =
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36'
    const event = (n: number, tags?: Record<string, string>) => ({
      event_id: eid(n),
      level: 'warning',
      release: 'shop@2.1.0',
      transaction: 'GET /orders/:id',
      exception: { values: [{ type: 'OrderError', value: 'order 7 failed' }] },
      request: { url: 'https://shop.example/orders/7?x=1', headers: { 'User-Agent': ua } },
      user: { id: 'u-17' },
      ...(tags === undefined ? {} : { tags }),
    })
    const res = await sendItems(app, p, [
      ['event', event(1)],
      ['event', event(2, { tenant: 'acme' })],
    ])
    expect(res.statusCode).toBe(200)
    const one = await app.inject({
      url: `/api/0/projects/${p.id}/events/${eid(1)}/`,
      headers: ADMIN,
    })
    expect(one.statusCode).toBe(200)
    const body = one.json<{ tags: [string, string][]; issue_id: number }>()
    expect(body.tags).toEqual(
      expect.arrayContaining([
        ['level', 'warning'],
        ['release', 'shop@2.1.0'],
        ['transaction', 'GET /orders/:id'],
        ['url', 'https://shop.example/orders/7'],
        ['browser.name', 'Chrome'],
        ['user', 'id:u-17'],
      ]),
    )
    const list = await app.inject({ url: `/api/0/issues/${body.issue_id}/events/`, headers: ADMIN })
    const second = list
      .json<{ event_id: string; tags: [string, string][] }[]>()
      .find((e) => e.event_id === eid(2))
    expect(second?.tags).toEqual(
      expect.arrayContaining([
        ['tenant', 'acme'],
        ['level', 'warning'],
      ]),
    )
  })

  it("keep the SDK's tags at their positions, which the scrubber's remarks name", async () => {
    // What sentry-logback's contextTags send: MDC values as tags, one of them a secret.
    const res = await sendItems(app, p, [
      [
        'event',
        { event_id: eid(3), message: 'mdc', tags: { password: 'hunter2x', tenant: 'acme' } },
      ],
    ])
    expect(res.statusCode).toBe(200)
    const got = await app.inject({
      url: `/api/0/projects/${p.id}/events/${eid(3)}/`,
      headers: ADMIN,
    })
    const body = got.json<{ tags: [string, string][]; _meta: { tags: Record<string, unknown> } }>()
    const at = Object.keys(body._meta.tags).map(Number)
    expect(at).toHaveLength(1)
    expect(body.tags[at[0] ?? -1]).toEqual(['password', '[Filtered]'])
    expect(body.tags).toEqual(
      expect.arrayContaining([
        ['tenant', 'acme'],
        ['level', 'error'],
      ]),
    )
  })
})
