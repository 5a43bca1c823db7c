import { deflateSync, gzipSync } from 'node:zlib'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_PROTECTION } from '../src/config.ts'
import { createProject, eid, eventEnvelope, type TestProject, testApp } from './support/helpers.ts'
import { openRaw, postHead, readResponse } from './support/raw-http.ts'

// Over real sockets: a request without a valid key is answered before its body is sent, so
// it never costs more than its envelope header; slow clients are cut off; Node's own parser
// errors are JSON.
let app: FastifyInstance
let p: TestProject
let port: number

beforeAll(async () => {
  app = await testApp({
    protection: { ...DEFAULT_PROTECTION, requestTimeoutMs: 1000, diskMinFreeBytes: 0 },
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const addr = app.server.address()
  port = typeof addr === 'object' && addr !== null ? addr.port : 0
  p = await createProject(app)
})
afterAll(() => app.close())

const TEN_MB = 10 * 1024 * 1024

describe('credentials are checked before the body is read', () => {
  it('answers an unknown query key before any body byte arrives', async () => {
    const s = await openRaw(
      port,
      postHead(`/api/${p.id}/envelope/?sentry_key=${'f'.repeat(32)}`, {
        'content-length': TEN_MB,
        'content-encoding': 'gzip',
      }),
    )
    const res = await readResponse(s)
    s.destroy()
    expect(res.status).toBe(403)
    expect(JSON.parse(res.body)).toEqual({ detail: expect.stringMatching(/unknown public key/) })
  })

  it('answers a bad header credential on /store/ and OTLP before the body', async () => {
    for (const path of [`/api/${p.id}/store/`, `/api/${p.id}/otlp/v1/logs`]) {
      const s = await openRaw(
        port,
        postHead(path, {
          'content-length': TEN_MB,
          'x-sentry-auth': `Sentry sentry_key=${'e'.repeat(32)}`,
        }),
      )
      const res = await readResponse(s)
      s.destroy()
      expect(res.status).toBe(403)
    }
  })

  it('reads only the envelope header of a request without credentials', async () => {
    const s = await openRaw(
      port,
      postHead(`/api/${p.id}/envelope/`, { 'content-length': TEN_MB }),
      `{"event_id":"${eid(1)}"}\n{"type":"event"}\n{`,
    )
    const res = await readResponse(s)
    s.destroy()
    expect(res.status).toBe(401)
    expect(JSON.parse(res.body).detail).toMatch(/missing authorization/)
  })

  it('refuses an envelope header longer than the cap without a newline', async () => {
    const s = await openRaw(
      port,
      postHead(`/api/${p.id}/envelope/`, { 'content-length': TEN_MB }),
      `{"event_id":"${eid(2)}","x":"${'a'.repeat(DEFAULT_PROTECTION.maxAuthLine)}`,
    )
    const res = await readResponse(s)
    s.destroy()
    expect(res.status).toBe(401)
    expect(JSON.parse(res.body).detail).toMatch(/no envelope header within/)
  })

  it('accepts a gzip envelope whose dsn is its only credential, read in pieces', async () => {
    const body = gzipSync(eventEnvelope({ event_id: eid(3), message: 'dsn only' }, { dsn: p.dsn }))
    const s = await openRaw(
      port,
      postHead(`/api/${p.id}/envelope/`, {
        'content-length': body.length,
        'content-encoding': 'gzip',
      }),
    )
    // Byte by byte for the first part: the header check pauses and resumes the body.
    for (const b of body.subarray(0, 40)) s.write(Buffer.from([b]))
    s.write(body.subarray(40))
    const res = await readResponse(s)
    s.destroy()
    expect(res.status).toBe(200)
    expect(JSON.parse(res.body)).toEqual({ id: eid(3) })
  })

  it('answers a deflate body followed by trailing bytes', async () => {
    const body = Buffer.concat([
      deflateSync(eventEnvelope({ event_id: eid(4), message: 'trailing' })),
      Buffer.from('trailing garbage'),
    ])
    const res = await fetch(`http://127.0.0.1:${port}/api/${p.id}/envelope/?sentry_key=${p.key}`, {
      method: 'POST',
      headers: { 'content-encoding': 'deflate' },
      body,
    })
    expect(res.status).toBe(200)
  })
})

describe('slow and malformed clients', () => {
  it('cuts a body that trickles in with a 408 JSON answer', async () => {
    const s = await openRaw(
      port,
      postHead(`/api/${p.id}/envelope/?sentry_key=${p.key}`, { 'content-length': 1000 }),
      '{',
    )
    const trickle = setInterval(() => s.write(' '), 200)
    const res = await readResponse(s).finally(() => clearInterval(trickle))
    s.destroy()
    expect(res.status).toBe(408)
    expect(JSON.parse(res.body)).toEqual({ detail: 'request not received in time' })
  })

  it('answers oversized headers with a 431 JSON detail', async () => {
    const s = await openRaw(
      port,
      `GET /api/0/projects/ HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    )
    const res = await readResponse(s)
    s.destroy()
    expect(res.status).toBe(431)
    expect(JSON.parse(res.body)).toEqual({ detail: 'request header fields too large' })
  })

  it('answers a broken request line with a 400 JSON detail', async () => {
    const s = await openRaw(port, 'BLAH\u0001 / HTTP/1.1\r\n\r\n')
    const res = await readResponse(s)
    s.destroy()
    expect(res.status).toBe(400)
    expect(JSON.parse(res.body)).toEqual({ detail: 'malformed HTTP request' })
  })
})

describe('connection cap', () => {
  it('closes connections past MAX_CONNECTIONS and serves those within it', async () => {
    const capped = await testApp({
      protection: { ...DEFAULT_PROTECTION, maxConnections: 2, diskMinFreeBytes: 0 },
    })
    try {
      await capped.listen({ host: '127.0.0.1', port: 0 })
      const addr = capped.server.address()
      const cport = typeof addr === 'object' && addr !== null ? addr.port : 0
      const a = await openRaw(cport, '')
      const b = await openRaw(cport, '')
      const c = await openRaw(cport, '')
      await new Promise<void>((resolve) => c.once('close', () => resolve()))
      a.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n')
      expect((await readResponse(a)).status).toBe(200)
      a.destroy()
      b.destroy()
    } finally {
      await capped.close()
    }
  })
})
