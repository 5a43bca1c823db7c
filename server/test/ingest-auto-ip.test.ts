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

  it("fills an absent user address from the request's REMOTE_ADDR, as Relay does", async () => {
    // What sentry-python's Tornado integration sends, even without send_default_pii.
    const tornado = (n: number, env: unknown, user?: unknown) =>
      send({
        event_id: eid(n),
        message: 'tornado',
        request: { url: 'http://x/orders/1', env },
        ...(user === undefined ? {} : { user }),
      })
    await tornado(4, { REMOTE_ADDR: '192.0.2.44', SERVER_NAME: 'x' })
    expect((await stored(eid(4))).user).toEqual({ ip_address: '192.0.2.44' })
    // An address the SDK gave the user wins; a REMOTE_ADDR that is no address is not copied.
    await tornado(5, { REMOTE_ADDR: '192.0.2.44' }, { id: '9', ip_address: '198.51.100.2' })
    expect((await stored(eid(5))).user).toEqual({ id: '9', ip_address: '198.51.100.2' })
    await tornado(6, { REMOTE_ADDR: 'unix:/run/app.sock' }, { id: '9' })
    expect((await stored(eid(6))).user).toEqual({ id: '9' })
    // The issue counts the user, and the address finds it.
    const list = await app.inject({
      url: `/api/0/projects/${p.id}/issues/?query=${encodeURIComponent('user.ip:192.0.2.44')}`,
      headers: ADMIN,
    })
    expect(list.statusCode).toBe(200)
    expect(list.json<{ title: string }[]>().map((i) => i.title)).toContain('tornado')
  })

  it('keeps an address the SDK sent', async () => {
    await send({ event_id: eid(3), message: 'given', user: { ip_address: '198.51.100.1' } })
    expect((await stored(eid(3))).user).toEqual({ ip_address: '198.51.100.1' })
  })
})
