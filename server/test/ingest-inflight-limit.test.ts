import { mkdtempSync, rmSync } from 'node:fs'
import type { Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.ts'
import { DEFAULT_PROTECTION } from '../src/config.ts'
import { createProject, eid, eventEnvelope, type TestProject } from './support/helpers.ts'
import { openRaw, postHead, readResponse } from './support/raw-http.ts'
import { testConfig } from './support/test-config.ts'

// The bound on ingest requests in flight per process, over real sockets: requests held
// mid-body fill it, a further one is refused before a byte of its body is sent, health probes
// still answer, and requests are let in again once the held ones are answered.
const dir = mkdtempSync(join(tmpdir(), 'ingest-inflight-'))
const LIMIT = 4
let app: FastifyInstance
let p: TestProject
let port: number

beforeAll(async () => {
  app = await buildApp(
    testConfig({
      databasePath: join(dir, 'inflight.sqlite'),
      protection: { ...DEFAULT_PROTECTION, maxInflightRequests: LIMIT, diskMinFreeBytes: 0 },
    }),
  )
  await app.listen({ host: '127.0.0.1', port: 0 })
  const addr = app.server.address()
  port = typeof addr === 'object' && addr !== null ? addr.port : 0
  p = await createProject(app)
})
afterAll(async () => {
  await app.close()
  rmSync(dir, { recursive: true, force: true })
})

const path = () => `/api/${p.id}/envelope/?sentry_key=${p.key}`

/** Polls `cond` every 20 ms for up to 10 s. */
async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

describe('in-flight bound', () => {
  it('refuses a request past the bound before its body is read, and lets requests in again', async () => {
    const bodies = Array.from({ length: LIMIT }, (_, i) =>
      eventEnvelope({ event_id: eid(100 + i), message: `held ${i}` }),
    )
    const held: Socket[] = []
    try {
      // LIMIT requests whose headers and half their body are sent: in flight, not finished.
      for (const b of bodies) {
        const half = Math.floor(b.length / 2)
        held.push(
          await openRaw(
            port,
            postHead(path(), { 'content-length': Buffer.byteLength(b) }),
            b.slice(0, half),
          ),
        )
      }
      await until(() => app.ingestProtection.inflight.usage().inflight === LIMIT, 'held requests')

      // Headers only, no body byte: answered 429 with the shedding headers all the same.
      const next = await openRaw(port, postHead(path(), { 'content-length': 4096 }))
      const refused = await readResponse(next)
      next.destroy()
      expect(refused.status).toBe(429)
      expect(refused.headers['retry-after']).toBe(String(DEFAULT_PROTECTION.shedRetryAfterSeconds))
      expect(refused.headers['x-sentry-rate-limits']).toMatch(/^\d+::organization:overloaded$/)
      expect(refused.headers['connection']).toBe('keep-alive')
      expect(JSON.parse(refused.body).detail).toMatch(/overloaded/)

      // Health probes are never refused, also while the bound is full.
      for (const probe of ['/healthz', '/readyz']) {
        const res = await fetch(`http://127.0.0.1:${port}${probe}`)
        expect(res.status, probe).toBe(200)
      }
      expect(app.ingestProtection.inflight.usage().inflight).toBe(LIMIT)

      // The held requests finish and are accepted.
      for (const [i, s] of held.entries()) {
        const b = bodies[i] as string
        s.write(b.slice(Math.floor(b.length / 2)))
        expect((await readResponse(s)).status).toBe(200)
      }
    } finally {
      for (const s of held) s.destroy()
    }
    await until(() => app.ingestProtection.inflight.usage().inflight === 0, 'places given back')
    const again = await fetch(`http://127.0.0.1:${port}${path()}`, {
      method: 'POST',
      body: eventEnvelope({ event_id: eid(200), message: 'after' }),
    })
    expect(again.status).toBe(200)
  }, 60_000)

  it('gives the place back when a client goes away mid-body', async () => {
    const b = eventEnvelope({ event_id: eid(300), message: 'abandoned' })
    const s = await openRaw(
      port,
      postHead(path(), { 'content-length': Buffer.byteLength(b) }),
      b.slice(0, 10),
    )
    await until(() => app.ingestProtection.inflight.usage().inflight === 1, 'the request in flight')
    s.destroy()
    await until(() => app.ingestProtection.inflight.usage().inflight === 0, 'the place given back')
  }, 30_000)
})
