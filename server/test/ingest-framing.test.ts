import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ADMIN,
  createProject,
  eid,
  eventEnvelope,
  issuesOf,
  sentryAuth,
  type TestProject,
  testApp,
} from './support/helpers.ts'

let app: FastifyInstance
let p: TestProject

beforeAll(async () => {
  app = await testApp()
  p = await createProject(app)
})
afterAll(() => app.close())

const post = (body: string | Buffer, headers: Record<string, string> = {}, url?: string) =>
  app.inject({
    method: 'POST',
    url: url ?? `/api/${p.id}/envelope/`,
    headers: { 'x-sentry-auth': sentryAuth(p.key), ...headers },
    payload: body,
  })

const stored = async (id: string) => {
  const res = await app.inject({
    method: 'GET',
    url: `/api/0/projects/${p.id}/events/${id}/`,
    headers: ADMIN,
  })
  return res.statusCode === 200 ? res.json<Record<string, unknown>>() : undefined
}

describe('envelope framing as the SDKs send it', () => {
  it('JS: no lengths, no trailing newline, no content type; answers exactly 200 {"id"}', async () => {
    const id = eid(1)
    const res = await post(
      eventEnvelope({ event_id: id, message: 'js style', timestamp: 1795338167.32 }),
    )
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ id })
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    expect(await stored(id)).toMatchObject({ event_id: id, logentry: { formatted: 'js style' } })
  })

  it('Python: lengths, content_type on items, trailing newline, RFC 3339 timestamps', async () => {
    const id = eid(2)
    // Python's form (microseconds, `Z`) of a time a second ago: a `sent_at` days old would be
    // read as a clock off by days, and the event dated now (event/clock.ts).
    const ms = new Date(Date.now() - 1000).toISOString()
    const at = ms.replace('Z', '956Z')
    const event = JSON.stringify({ event_id: id, message: 'py style', timestamp: at })
    const body = `{"event_id":"${id}","sent_at":"${at}"}\n{"type":"event","content_type":"application/json","length":${Buffer.byteLength(event)}}\n${event}\n`
    const res = await post(body, { 'content-type': 'application/x-sentry-envelope' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ id })
    const e = await stored(id)
    expect(e?.['timestamp']).toBeCloseTo(Date.parse(ms) / 1000, 2)
  })

  it('Rust: dashed event id in the header wins over the payload id, stored undashed', async () => {
    const dashed = '22d00b3f-d1b1-4b5d-8d20-49d138cd8a9c'
    const plain = dashed.replaceAll('-', '')
    const event = JSON.stringify({ event_id: eid(999), message: 'rust style', level: 'error' })
    const res = await post(
      `{"event_id":"${dashed}"}\n{"type":"event","length":${event.length}}\n${event}\n`,
    )
    expect(res.json()).toEqual({ id: plain })
    expect(await stored(plain)).toMatchObject({ event_id: plain })
    expect(await stored(eid(999))).toBeUndefined()
  })

  it('browser: text/plain content type and query-string auth', async () => {
    const id = eid(3)
    const res = await app.inject({
      method: 'POST',
      url: `/api/${p.id}/envelope/?sentry_version=7&sentry_key=${p.key}&sentry_client=sentry.javascript.browser%2F11.12.0`,
      headers: { 'content-type': 'text/plain;charset=UTF-8', origin: 'http://localhost:8088' },
      payload: eventEnvelope({ event_id: id, message: 'browser style' }),
    })
    expect(res.statusCode).toBe(200)
    expect(res.headers['access-control-allow-origin']).toBe('http://localhost:8088')
    expect(String(res.headers['access-control-expose-headers'])).toMatch(/x-sentry-rate-limits/)
    expect(String(res.headers['access-control-expose-headers'])).toMatch(/retry-after/)
  })

  it('answers the CORS preflight', async () => {
    const res = await app.inject({
      method: 'OPTIONS',
      url: `/api/${p.id}/envelope/`,
      headers: {
        origin: 'http://localhost:8088',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-sentry-auth',
      },
    })
    expect(res.statusCode).toBe(204)
    expect(res.headers['access-control-allow-origin']).toBe('http://localhost:8088')
    expect(String(res.headers['access-control-allow-methods'])).toMatch(/POST/)
    expect(String(res.headers['access-control-allow-headers'])).toMatch(/x-sentry-auth/)
  })

  it('Go: the dsn in the envelope header authenticates when nothing else does', async () => {
    const id = eid(4)
    const body = `{"event_id":"${id}","dsn":"${p.dsn}"}\n{"type":"event","length":2}\n{}\n`
    const res = await app.inject({ method: 'POST', url: `/api/${p.id}/envelope/`, payload: body })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ id })
  })

  it('accepts the path without trailing slash and with doubled slashes', async () => {
    const a = await post(eventEnvelope({ event_id: eid(5) }), {}, `/api/${p.id}/envelope`)
    const b = await post(eventEnvelope({ event_id: eid(6) }), {}, `//api/${p.id}//envelope/`)
    expect([a.statusCode, b.statusCode]).toEqual([200, 200])
  })

  it('envelopes without events answer {} and unknown items never fail the envelope', async () => {
    const res = await post(
      '{}\n{"type":"client_report"}\n{"discarded_events":[]}\n{"type":"brand_new_thing"}\n{}',
    )
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({})
    const id = eid(7)
    const mixed = `{"event_id":"${id}"}\n{"type":"transaction"}\n{"type":"transaction"}\n{"type":"event"}\n{"message":"next to junk"}\n{"type":"profile","length":3}\n\x00\x01\x02\n`
    const r2 = await post(mixed)
    expect(r2.statusCode).toBe(200)
    expect(r2.json()).toEqual({ id })
    expect(await stored(id)).toMatchObject({
      event_id: id,
      project_id: p.id,
      title: 'next to junk',
    })
  })

  it('several events in one envelope each keep their own id', async () => {
    const ids = [eid(20), eid(21), eid(22)]
    const body = [
      '{}',
      ...ids.flatMap((id) => [
        '{"type":"event"}',
        JSON.stringify({ event_id: id, message: `m ${id}` }),
      ]),
    ].join('\n')
    const res = await post(body)
    expect(res.statusCode).toBe(200)
    // Each id holds its own payload, not another's.
    for (const id of ids) {
      expect(await stored(id)).toMatchObject({ event_id: id, project_id: p.id, title: `m ${id}` })
    }
  })
})

describe('/store/ for old SDKs', () => {
  it('takes a bare JSON event and answers its id', async () => {
    const id = eid(30)
    const res = await post(
      JSON.stringify({ event_id: id, message: 'legacy store' }),
      { 'content-type': 'application/json' },
      `/api/${p.id}/store/`,
    )
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ id })
    expect(await stored(id)).toMatchObject({
      event_id: id,
      project_id: p.id,
      title: 'legacy store',
    })
  })

  it('takes base64(zlib(json)) as raven clients sent it', async () => {
    const { deflateSync } = await import('node:zlib')
    const id = eid(31)
    const body = deflateSync(JSON.stringify({ event_id: id, message: 'raven' })).toString('base64')
    const res = await post(body, {}, `/api/${p.id}/store/`)
    expect(res.json()).toEqual({ id })
  })

  it("reads Python's NaN and Infinity tokens as null, in /store/ bodies and envelopes", async () => {
    // raven-python wrote floats with json.dumps(allow_nan=True): bare tokens, not JSON.
    const raw = (id: string) =>
      `{"event_id":"${id}","message":"NaN here","extra":{"ratio":NaN,"limits":[Infinity,-Infinity]}}`
    const res = await post(raw(eid(32)), {}, `/api/${p.id}/store/`)
    expect(res.json()).toEqual({ id: eid(32) })
    expect((await stored(eid(32)))?.['extra']).toEqual({ ratio: null, limits: [null, null] })
    const env = await post(`{}\n{"type":"event"}\n${raw(eid(33))}`)
    expect(env.json()).toEqual({ id: eid(33) })
    expect((await stored(eid(33)))?.['message']).toBe('NaN here')
  })

  it('reads the sentry.interfaces.* names of old raven clients as their fields', async () => {
    const legacy = {
      event_id: eid(34),
      tags: [['server_name', 'web01']],
      'sentry.interfaces.Exception': {
        values: [
          {
            type: 'KeyError',
            value: "'user'",
            'sentry.interfaces.Stacktrace': { frames: [{ function: 'view', lineno: 3 }] },
          },
        ],
      },
      'sentry.interfaces.User': { id: '42' },
      'sentry.interfaces.Http': { url: 'http://example.org/', method: 'GET' },
      user: null,
    }
    const res = await post(JSON.stringify(legacy), {}, `/api/${p.id}/store/`)
    expect(res.json()).toEqual({ id: eid(34) })
    const ev = await stored(eid(34))
    expect(ev?.['title']).toBe("KeyError: 'user'")
    expect(ev?.['user']).toEqual({ id: '42' })
    expect(ev?.['request']).toMatchObject({ url: 'http://example.org/' })
    expect(ev?.['exception']).toMatchObject({
      values: [{ stacktrace: { frames: [{ function: 'view', lineno: 3 }] } }],
    })
    expect(Object.keys(ev ?? {}).filter((k) => k.startsWith('sentry.interfaces.'))).toEqual([])
    const message = {
      event_id: eid(35),
      'sentry.interfaces.Message': { message: 'Login failed for %s', params: ['bob'] },
    }
    await post(JSON.stringify(message), {}, `/api/${p.id}/store/`)
    expect((await stored(eid(35)))?.['title']).toBe('Login failed for bob')
  })

  it('takes the GET image beacon (sentry_data in the query) and answers a 1×1 GIF', async () => {
    const id = eid(36)
    const event = JSON.stringify({ event_id: id, message: 'beacon', platform: 'javascript' })
    const q = (data: string, extra = '') =>
      `/api/${p.id}/store/?sentry_version=7&sentry_client=raven-js%2F1.1.22&sentry_key=${p.key}${extra}&sentry_data=${encodeURIComponent(data)}`
    const res = await app.inject({ method: 'GET', url: q(event) })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('image/gif')
    expect(res.rawPayload.subarray(0, 6).toString('latin1')).toBe('GIF89a')
    expect((await stored(id))?.['title']).toBe('beacon')
    // The neutral names too, and base64 as the POST body allows.
    const neutral = await app.inject({
      method: 'GET',
      url: `/api/${p.id}/store/?ingest_key=${p.key}&ingest_data=${encodeURIComponent(
        Buffer.from(JSON.stringify({ event_id: eid(37), message: 'neutral beacon' })).toString(
          'base64',
        ),
      )}`,
    })
    expect(neutral.statusCode).toBe(200)
    expect((await stored(eid(37)))?.['title']).toBe('neutral beacon')
    // Errors stay JSON: no key, no data, data that is not an event.
    const noKey = await app.inject({
      method: 'GET',
      url: `/api/${p.id}/store/?sentry_data=${encodeURIComponent(event)}`,
    })
    expect(noKey.statusCode).toBe(401)
    const noData = await app.inject({
      method: 'GET',
      url: `/api/${p.id}/store/?sentry_key=${p.key}`,
    })
    expect(noData.statusCode).toBe(400)
    expect(noData.json<{ detail: string }>().detail).toMatch(/sentry_data/)
    const bad = await app.inject({ method: 'GET', url: q('not an event') })
    expect(bad.statusCode).toBe(400)
    const twice = await app.inject({ method: 'GET', url: q(event, `&sentry_data=x`) })
    expect(twice.statusCode).toBe(400)
  })

  it('rejects a non-JSON body with 400', async () => {
    const res = await post('this is not json!', {}, `/api/${p.id}/store/`)
    expect(res.statusCode).toBe(400)
    expect(res.json<{ detail: string }>().detail).toMatch(/not JSON/)
  })
})

describe('grouping through ingest', () => {
  it('two captured messages that differ only in a number land in one issue', async () => {
    const q = await createProject(app, 'grouping')
    for (const [n, msg] of [
      [40, 'order 17 failed for user 3f2a9c1e-0000-4000-8000-000000000000'],
      [41, 'order 42 failed for user 7b1c2d3e-0000-4000-8000-000000000001'],
    ] as const) {
      const res = await app.inject({
        method: 'POST',
        url: `/api/${q.id}/envelope/?sentry_key=${q.key}`,
        payload: eventEnvelope({ event_id: eid(n), message: msg }),
      })
      expect(res.statusCode).toBe(200)
    }
    const issues = await issuesOf(app, q.id)
    expect(issues).toHaveLength(1)
    expect(issues[0]).toMatchObject({ count: 2, status: 'unresolved' })
  })
})
