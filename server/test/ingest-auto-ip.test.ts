import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ADMIN,
  createProject,
  eid,
  sentryAuth,
  type TestProject,
  testApp,
} from './support/helpers.ts'

// `{{auto}}` in user.ip_address and request.env.REMOTE_ADDR becomes the sender's address, on
// the main thread and on a digest thread alike; an address the SDK gave is kept.
describe.each([0, 1])('{{auto}} addresses with %i digest thread(s)', (threads) => {
  let app: FastifyInstance
  let p: TestProject

  beforeAll(async () => {
    app = await testApp({ digestThreads: threads })
    p = await createProject(app)
  })
  afterAll(() => app.close())

  const send = (event: Record<string, unknown>, url = `/api/${p.id}/envelope/`) =>
    app.inject({
      method: 'POST',
      url,
      remoteAddress: '203.0.113.7',
      headers: { 'x-sentry-auth': sentryAuth(p.key) },
      payload: url.endsWith('/store/')
        ? JSON.stringify(event)
        : `{}\n{"type":"event"}\n${JSON.stringify(event)}`,
    })
  const stored = async (id: string) =>
    (await app.inject({ url: `/api/0/projects/${p.id}/events/${id}/`, headers: ADMIN })).json<{
      user?: Record<string, unknown>
      request?: { env?: Record<string, unknown> }
    }>()

  it('replaces the placeholder with the address the event came from', async () => {
    const res = await send({
      event_id: eid(1),
      message: 'auto',
      user: { id: '7', ip_address: '{{auto}}' },
      request: { url: 'http://x/', env: { REMOTE_ADDR: '{{auto}}', SERVER_NAME: 'x' } },
    })
    expect(res.statusCode).toBe(200)
    const ev = await stored(eid(1))
    expect(ev.user).toEqual({ id: '7', ip_address: '203.0.113.7' })
    expect(ev.request?.env).toEqual({ REMOTE_ADDR: '203.0.113.7', SERVER_NAME: 'x' })
    await send({ event_id: eid(2), user: { ip_address: '{{auto}}' } }, `/api/${p.id}/store/`)
    expect((await stored(eid(2))).user).toEqual({ ip_address: '203.0.113.7' })
  })

  it('keeps an address the SDK sent', async () => {
    await send({ event_id: eid(3), message: 'given', user: { ip_address: '198.51.100.1' } })
    expect((await stored(eid(3))).user).toEqual({ ip_address: '198.51.100.1' })
  })
})
