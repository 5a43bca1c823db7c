import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createProject, eid, eventEnvelope, type TestProject, testApp } from './support/helpers.ts'

// Over a real socket: what inject() cannot show (chunked bodies, answers to bodies cut off).
let app: FastifyInstance
let p: TestProject
let base: string

beforeAll(async () => {
  app = await testApp({
    limits: {
      maxCompressedBody: 256 * 1024,
      maxEnvelope: 1024 * 1024,
      maxEvent: 64 * 1024,
      maxSmallItem: 1024,
    },
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const addr = app.server.address()
  base = `http://127.0.0.1:${typeof addr === 'object' && addr !== null ? addr.port : 0}`
  p = await createProject(app)
})
afterAll(() => app.close())

function chunked(parts: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(new TextEncoder().encode(part))
      controller.close()
    },
  })
}

describe('over a real socket', () => {
  it('accepts a chunked body without Content-Length, as @sentry/node sends it', async () => {
    const body = eventEnvelope({ event_id: eid(1), message: 'chunked' })
    const res = await fetch(`${base}/api/${p.id}/envelope/?sentry_key=${p.key}`, {
      method: 'POST',
      body: chunked([body.slice(0, 10), body.slice(10, 30), body.slice(30)]),
      duplex: 'half',
    } as RequestInit)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ id: eid(1) })
  })

  it('answers 413 with a JSON detail to a chunked body over the cap', async () => {
    const big = Array.from({ length: 40 }, () => 'x'.repeat(16 * 1024))
    const res = await fetch(`${base}/api/${p.id}/envelope/?sentry_key=${p.key}`, {
      method: 'POST',
      body: chunked(['{}\n{"type":"attachment"}\n', ...big]),
      duplex: 'half',
    } as RequestInit)
    expect(res.status).toBe(413)
    expect(((await res.json()) as { detail: string }).detail).toMatch(/exceeds the limit/)
  })

  it('answers 413 up front to a declared Content-Length over the cap', async () => {
    const res = await fetch(`${base}/api/${p.id}/envelope/?sentry_key=${p.key}`, {
      method: 'POST',
      body: 'y'.repeat(300 * 1024),
    })
    expect(res.status).toBe(413)
  })
})
