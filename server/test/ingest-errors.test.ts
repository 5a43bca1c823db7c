import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ADMIN,
  createProject,
  eid,
  eventEnvelope,
  issuesOf,
  type TestProject,
  testApp,
} from './support/helpers.ts'
import { zstdCompress } from './support/zstd-cli.ts'

let app: FastifyInstance
let p: TestProject
let other: TestProject

beforeAll(async () => {
  app = await testApp({
    limits: {
      maxCompressedBody: 64 * 1024,
      maxEnvelope: 256 * 1024,
      maxEvent: 32 * 1024,
      maxSmallItem: 1024,
    },
  })
  p = await createProject(app, 'main')
  other = await createProject(app, 'other')
})
afterAll(() => app.close())

const send = (opts: { body: string | Buffer; headers?: Record<string, string>; url?: string }) =>
  app.inject({
    method: 'POST',
    url: opts.url ?? `/api/${p.id}/envelope/?sentry_key=${p.key}`,
    headers: opts.headers ?? {},
    payload: opts.body,
  })

const detail = (res: { json: <T>() => T }) => res.json<{ detail: string }>().detail

describe('credentials', () => {
  const env = eventEnvelope({ event_id: eid(1), message: 'x' })

  it('401 with a JSON detail when no credential is sent', async () => {
    const res = await send({ body: env, url: `/api/${p.id}/envelope/` })
    expect(res.statusCode).toBe(401)
    expect(detail(res)).toMatch(/missing authorization/)
  })

  it('401 for a malformed key or auth header', async () => {
    const a = await send({ body: env, url: `/api/${p.id}/envelope/?sentry_key=not-a-key` })
    expect(a.statusCode).toBe(401)
    expect(detail(a)).toMatch(/malformed public key/)
    const b = await send({
      body: env,
      url: `/api/${p.id}/envelope/`,
      headers: { 'x-sentry-auth': 'Sentry sentry_version=7' },
    })
    expect(b.statusCode).toBe(401)
    expect(detail(b)).toMatch(/sentry_key/)
  })

  it('403 for an unknown key and for a key of another project', async () => {
    const unknown = await send({
      body: env,
      url: `/api/${p.id}/envelope/?sentry_key=${'0'.repeat(32)}`,
    })
    expect(unknown.statusCode).toBe(403)
    expect(detail(unknown)).toMatch(/unknown public key/)
    const foreign = await send({ body: env, url: `/api/${p.id}/envelope/?sentry_key=${other.key}` })
    expect(foreign.statusCode).toBe(403)
    expect(detail(foreign)).toMatch(new RegExp(`belongs to project ${other.id}`))
  })

  it('accepts every header form: X-Sentry-Auth without spaces (Java), Authorization: Sentry, neutral names', async () => {
    const forms: Record<string, string>[] = [
      {
        'x-sentry-auth': `Sentry sentry_version=7,sentry_client=sentry.java/8.53.0,sentry_key=${p.key}`,
      },
      { authorization: `Sentry sentry_key=${p.key}` },
      { 'x-ingest-auth': `Ingest ingest_key=${p.key}` },
      { 'x-sentry-auth': `sentry sentry_key=${p.key.toUpperCase()}` },
    ]
    for (const [i, headers] of forms.entries()) {
      const res = await send({
        body: eventEnvelope({ event_id: eid(100 + i) }),
        url: `/api/${p.id}/envelope/`,
        headers,
      })
      expect(res.statusCode, JSON.stringify(headers)).toBe(200)
    }
    const q = await send({
      body: eventEnvelope({ event_id: eid(110) }),
      url: `/api/${p.id}/envelope/?ingest_key=${p.key}`,
    })
    expect(q.statusCode).toBe(200)
  })

  it('the query parameter takes precedence over the header, the header over the envelope dsn', async () => {
    const a = await send({
      body: eventEnvelope({ event_id: eid(120) }),
      url: `/api/${p.id}/envelope/?sentry_key=${p.key}`,
      headers: { 'x-sentry-auth': `Sentry sentry_key=${other.key}` },
    })
    expect(a.statusCode).toBe(200)
    const b = await send({
      body: eventEnvelope(
        { event_id: eid(121) },
        { dsn: `http://${other.key}@localhost/${other.id}` },
      ),
      url: `/api/${p.id}/envelope/`,
      headers: { 'x-sentry-auth': `Sentry sentry_key=${p.key}` },
    })
    expect(b.statusCode).toBe(200)
  })

  it('rejects a protocol version above 7 with 400', async () => {
    const res = await send({
      body: env,
      url: `/api/${p.id}/envelope/?sentry_key=${p.key}&sentry_version=8`,
    })
    expect(res.statusCode).toBe(400)
    expect(detail(res)).toMatch(/protocol version/)
  })

  it('rejects a non-numeric project path with 400', async () => {
    const res = await send({ body: env, url: `/api/abc/envelope/?sentry_key=${p.key}` })
    expect(res.statusCode).toBe(400)
    expect(detail(res)).toMatch(/bad project id/)
  })
})

describe('bad input never becomes a 500 and stores nothing', () => {
  it('400 for malformed envelopes and event JSON, with nothing stored', async () => {
    const q = await createProject(app, 'bad-input')
    const url = `/api/${q.id}/envelope/?sentry_key=${q.key}`
    const bodies = [
      'not json',
      '{}\n{"type":"event","length":999}\n{}',
      '{}\n{"type":"event"}\n{broken',
      '{}\n{"type":"event"}\n[1,2,3]',
      `{}\n{"type":"event"}\n{"message":"ok"}\n{"type":"event"}\n{oops`,
      '',
    ]
    for (const body of bodies) {
      const res = await send({ body, url })
      expect(res.statusCode, body).toBe(400)
      expect(typeof detail(res)).toBe('string')
    }
    expect(await issuesOf(app, q.id)).toEqual([])
  })

  it('survives random bytes, huge headers and odd JSON without a 500', async () => {
    const samples = [
      Buffer.from([0xff, 0xfe, 0x00, 0x0a, 0x7b]),
      `{"event_id":${'9'.repeat(400)}}\n{"type":"event"}\n{}`,
      `{}\n{"type":"event"}\n{"exception":{"values":[null,1,"x",{"stacktrace":{"frames":[null,{"lineno":"x"}]}}]},"tags":[[1],[null,null],"x"],"breadcrumbs":7}`,
      `{}\n{"type":"event"}\n{"timestamp":"yesterday","level":99,"fingerprint":[{}, 3, "a"],"logentry":{"params":"x"}}`,
      `{}\n{"type":"event"}\n${JSON.stringify({ message: { message: 'tpl %s', params: [1] }, user: [], contexts: 'no' })}`,
    ]
    for (const body of samples) {
      const res = await send({ body })
      expect(res.statusCode, String(body).slice(0, 60)).toBeLessThan(500)
    }
  })
})

describe('compression', () => {
  const envelope = eventEnvelope({ event_id: eid(200), message: 'compressed' })

  it.each([
    ['gzip', gzipSync],
    ['x-gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
    ['zstd', (b: Buffer) => zstdCompress(b)],
    ['ZSTD', (b: Buffer) => zstdCompress(b, ['-19'])],
  ] as const)('decodes %s', async (encoding, fn) => {
    const res = await send({
      body: fn(Buffer.from(envelope)),
      headers: { 'content-encoding': encoding },
    })
    expect(res.statusCode).toBe(200)
  })

  it('decodes raw deflate sent as "deflate" and ignores the bogus UTF-8 encoding', async () => {
    const a = await send({
      body: deflateRawSync(Buffer.from(envelope)),
      headers: { 'content-encoding': 'deflate' },
    })
    expect(a.statusCode).toBe(200)
    const b = await send({ body: envelope, headers: { 'content-encoding': 'UTF-8' } })
    expect(b.statusCode).toBe(200)
  })

  it('400 for broken compression, 415 for an unknown encoding', async () => {
    const broken = gzipSync(Buffer.from(envelope)).subarray(0, 20)
    const a = await send({ body: broken, headers: { 'content-encoding': 'gzip' } })
    expect(a.statusCode).toBe(400)
    expect(detail(a)).toMatch(/could not decode gzip/)
    const b = await send({ body: 'plain', headers: { 'content-encoding': 'br' } })
    expect(b.statusCode).toBe(400)
    const c = await send({ body: envelope, headers: { 'content-encoding': 'compress' } })
    expect(c.statusCode).toBe(415)
    expect(detail(c)).toMatch(/unsupported Content-Encoding/)
    const d = await send({ body: envelope, headers: { 'content-encoding': 'zstd' } })
    expect(d.statusCode).toBe(400)
    expect(detail(d)).toMatch(/could not decode zstd/)
    const e = await send({
      body: zstdCompress(envelope, ['--ultra', '-22']),
      headers: { 'content-encoding': 'zstd' },
    })
    expect(e.statusCode).toBe(400)
    expect(e.json<{ causes: string[] }>().causes.join()).toMatch(/window of 134217728 bytes/)
  })
})

describe('size limits', () => {
  it('413 when the body as sent is over the compressed cap', async () => {
    const res = await send({ body: `{}\n{"type":"attachment"}\n${'a'.repeat(70 * 1024)}` })
    expect(res.statusCode).toBe(413)
    expect(detail(res)).toMatch(/exceeds the limit/)
  })

  it('413 for a single event over the event cap', async () => {
    const res = await send({
      body: eventEnvelope({ event_id: eid(300), message: 'x'.repeat(40 * 1024) }),
    })
    expect(res.statusCode).toBe(413)
    expect(detail(res)).toMatch(/size limits for type 'event'/)
  })

  it('cuts off decompression bombs at the cap (gzip, brotli, zstd) without exhausting memory', async () => {
    const zeros = Buffer.alloc(16 * 1024 * 1024)
    for (const [encoding, body] of [
      ['gzip', gzipSync(zeros)],
      ['br', brotliCompressSync(zeros)],
      ['zstd', zstdCompress(zeros)],
    ] as const) {
      expect(body.length).toBeLessThan(20 * 1024)
      const before = process.memoryUsage().rss
      const res = await send({ body, headers: { 'content-encoding': encoding } })
      expect(res.statusCode).toBe(413)
      expect(detail(res)).toMatch(/decompressed body exceeds/)
      expect(process.memoryUsage().rss - before).toBeLessThan(48 * 1024 * 1024)
    }
  })
})

describe('management API auth', () => {
  it('401 without or with a wrong token', async () => {
    const a = await app.inject({ method: 'GET', url: '/api/0/projects/' })
    expect(a.statusCode).toBe(401)
    expect(detail(a)).toMatch(/authentication required/)
    const b = await app.inject({
      method: 'GET',
      url: '/api/0/projects/',
      headers: { authorization: 'Bearer nope' },
    })
    expect(b.statusCode).toBe(401)
  })

  it('a DSN public key grants nothing on the management API', async () => {
    const res = await app.inject({
      method: 'GET',
      url: '/api/0/projects/',
      headers: { authorization: `Bearer ${p.key}` },
    })
    expect(res.statusCode).toBe(401)
  })

  it('serves an OpenAPI document', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/0/openapi.json' })
    expect(res.statusCode).toBe(200)
    expect(res.json<{ openapi: string; paths: Record<string, unknown> }>().paths).toHaveProperty([
      '/api/0/projects/',
    ])
  })

  it('400 with a detail for an invalid project body', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/0/projects/',
      headers: ADMIN,
      payload: { name: '' },
    })
    expect(res.statusCode).toBe(400)
    expect(detail(res)).toMatch(/name/)
  })
})
