import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ADMIN,
  createProject,
  eid,
  envelopeOf,
  sentryAuth,
  type TestProject,
  testApp,
} from './support/helpers.ts'
import { createUser, signIn, type UiClient } from './support/ui-helpers.ts'

// The hostile values that once answered 500 on a read: each is stored bounded, and every read
// of it renders.
let app: FastifyInstance
let p: TestProject
let ui: UiClient

beforeAll(async () => {
  app = await testApp({ cronClockIntervalMs: 0 })
  p = await createProject(app)
  await createUser(app)
  ui = await signIn(app)
})
afterAll(() => app.close())

async function send(body: string) {
  return app.inject({
    method: 'POST',
    url: `/api/${p.id}/envelope/`,
    headers: { 'x-sentry-auth': sentryAuth(p.key) },
    payload: body,
  })
}

async function eventJson(id: string): Promise<Record<string, unknown>> {
  const res = await app.inject({ url: `/api/0/projects/${p.id}/events/${id}/`, headers: ADMIN })
  expect(res.statusCode).toBe(200)
  return res.json()
}

describe('events with values outside what a reader can show', () => {
  it('drops breadcrumb and event times past year 9999, with a note, and renders the issue', async () => {
    const event = {
      event_id: eid(1),
      timestamp: '9999999999999',
      message: 'far future',
      breadcrumbs: [
        { timestamp: 1e20, message: 'a' },
        { timestamp: '9999999999999', message: 'b' },
        { timestamp: 1_700_000_000, message: 'c' },
      ],
    }
    expect((await send(envelopeOf([['event', event]]))).statusCode).toBe(200)
    const stored = await eventJson(eid(1))
    const data = stored as unknown as {
      breadcrumbs: { values: { timestamp?: number }[] }
      errors: { type: string; name: string }[]
    }
    expect(data.breadcrumbs.values.map((b) => b.timestamp)).toEqual([
      undefined,
      undefined,
      1_700_000_000,
    ])
    expect(data.errors).toContainEqual({ type: 'invalid_timestamp', name: 'timestamp' })
    const issueId = stored['issue_id'] as number
    expect((await ui.get(`/issues/${issueId}`)).statusCode).toBe(200)
    expect((await ui.get(`/projects/${p.id}/issues`)).statusCode).toBe(200)
  })

  it('stores an event nested thousands of levels deep, cut at the databag depth', async () => {
    const deep = `${'['.repeat(5000)}1${']'.repeat(5000)}`
    const body = `{}\n{"type":"event"}\n{"event_id":"${eid(2)}","message":"deep","extra":{"v":${deep}},"custom":${deep}}`
    const res = await send(body)
    expect(res.statusCode, res.body).toBe(200)
    const stored = await eventJson(eid(2))
    const data = stored as unknown as { errors: { type: string }[] }
    expect(data.errors.some((e) => e.type === 'too_deep')).toBe(true)
    expect((await ui.get(`/issues/${stored['issue_id']}`)).statusCode).toBe(200)
  })

  it('keeps at most 200 breadcrumbs and 250 frames, from both ends of the stack', async () => {
    const frames = Array.from({ length: 1000 }, (_, i) => ({ function: `f${i}` }))
    const event = {
      event_id: eid(3),
      exception: { values: [{ type: 'E', value: 'v', stacktrace: { frames } }] },
      breadcrumbs: Array.from({ length: 500 }, (_, i) => ({ message: `m${i}` })),
    }
    expect((await send(envelopeOf([['event', event]]))).statusCode).toBe(200)
    const data = (await eventJson(eid(3))) as unknown as {
      breadcrumbs: { values: { message: string }[] }
      exception: { values: { stacktrace: { frames: { function: string }[] } }[] }
    }
    expect(data.breadcrumbs.values).toHaveLength(200)
    expect(data.breadcrumbs.values[0]?.message).toBe('m300')
    const kept = data.exception.values[0]?.stacktrace.frames ?? []
    expect(kept).toHaveLength(250)
    expect(kept[0]?.function).toBe('f0')
    expect(kept[249]?.function).toBe('f999')
  })
})

describe('check-ins and queries outside a sane range', () => {
  it('drops a check-in duration of 1e13 s; the Crons pages and API render', async () => {
    const checkIn = {
      check_in_id: 'a'.repeat(32),
      monitor_slug: 'huge',
      status: 'ok',
      duration: 1e13,
      monitor_config: { schedule: { type: 'crontab', value: '* * * * *' } },
    }
    expect((await send(envelopeOf([['check_in', checkIn]]))).statusCode).toBe(200)
    for (const url of [
      `/api/0/projects/${p.id}/monitors/`,
      `/api/0/projects/${p.id}/monitors/huge/`,
      `/api/0/projects/${p.id}/monitors/huge/checkins/`,
    ]) {
      const res = await app.inject({ url, headers: ADMIN })
      expect(res.statusCode, `${url}: ${res.body}`).toBe(200)
    }
    for (const url of [`/projects/${p.id}/crons`, `/projects/${p.id}/crons/huge`]) {
      expect((await ui.get(url)).statusCode, url).toBe(200)
    }
  })

  it('answers 400 to a time past year 9999 and to a malformed paging cursor', async () => {
    for (const url of [
      `/api/0/projects/${p.id}/outcomes/?until=99999999999999999999`,
      `/api/0/projects/${p.id}/outcomes/series/?since=1e400`,
      `/api/0/projects/${p.id}/issues/?cursor=abc`,
      `/api/0/projects/${p.id}/monitors/huge/checkins/?cursor=1:x`,
    ]) {
      const res = await app.inject({ url, headers: ADMIN })
      expect(res.statusCode, `${url}: ${res.body}`).toBe(400)
      expect(res.json()).toEqual(expect.objectContaining({ detail: expect.any(String) }))
    }
    expect((await ui.get(`/projects/${p.id}/issues?cursor=zz`)).statusCode).toBe(400)
  })
})
