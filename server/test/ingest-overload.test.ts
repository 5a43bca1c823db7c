import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.ts'
import { type Config, DEFAULT_PROTECTION } from '../src/config.ts'
import { ADMIN, createProject, eid, eventEnvelope, type TestProject } from './support/helpers.ts'
import { openRaw, postHead, readResponse } from './support/raw-http.ts'
import { testConfig } from './support/test-config.ts'

// Real overload at a small scale, over real sockets, on a database file (real fsyncs): past
// the bounds requests are shed at once with 429 + Retry-After, every accepted one is answered
// and stored, and memory stays bounded.
const dir = mkdtempSync(join(tmpdir(), 'ingest-overload-'))
let app: FastifyInstance
let p: TestProject
let port: number

const BUDGET = 64 * 1024

/** A server of the test's own, listening on loopback, with one project. */
interface Served {
  app: FastifyInstance
  port: number
  project: TestProject
}

/** A server of its own on a database file in `dir`, listening on a free loopback port. */
async function listening(file: string, settings: Partial<Config>): Promise<Served> {
  const app = await buildApp(testConfig({ databasePath: join(dir, file), ...settings }))
  await app.listen({ host: '127.0.0.1', port: 0 })
  const addr = app.server.address()
  const port = typeof addr === 'object' && addr !== null ? addr.port : 0
  return { app, port, project: await createProject(app) }
}

beforeAll(async () => {
  ;({
    app,
    port,
    project: p,
  } = await listening('overload.sqlite', {
    commitDelayMs: 20,
    protection: {
      ...DEFAULT_PROTECTION,
      maxQueuedUnits: 8,
      maxInflightBytes: BUDGET,
      diskMinFreeBytes: 0,
    },
  }))
})
afterAll(async () => {
  await app.close()
  rmSync(dir, { recursive: true, force: true })
})

const url = () => `http://127.0.0.1:${port}/api/${p.id}/envelope/?sentry_key=${p.key}`

describe('load shedding', () => {
  it('sheds past the queue bound with 429 + Retry-After; accepted requests are answered and stored', async () => {
    const rssBefore = process.memoryUsage().rss
    const N = 400
    const results = await Promise.all(
      Array.from({ length: N }, async (_, i) => {
        const res = await fetch(url(), {
          method: 'POST',
          body: eventEnvelope({ event_id: eid(10_000 + i), message: `load ${i % 7}` }),
        })
        const body = await res.text()
        return { i, status: res.status, headers: res.headers, body }
      }),
    )
    const ok = results.filter((r) => r.status === 200)
    const shed = results.filter((r) => r.status === 429)
    expect(ok.length + shed.length, JSON.stringify(results.find((r) => r.status >= 500))).toBe(N)
    expect(shed.length).toBeGreaterThan(0)
    expect(ok.length).toBeGreaterThan(0)
    for (const r of shed) {
      expect(r.headers.get('retry-after')).toBe(String(DEFAULT_PROTECTION.shedRetryAfterSeconds))
      expect(r.headers.get('x-sentry-rate-limits')).toMatch(/^\d+::organization:overloaded$/)
      expect(JSON.parse(r.body).detail).toMatch(/overloaded/)
    }
    // Every acknowledged event is stored.
    for (const r of ok.slice(0, 50)) {
      const ev = await app.inject({
        url: `/api/0/projects/${p.id}/events/${eid(10_000 + r.i)}/`,
        headers: ADMIN,
      })
      expect(ev.statusCode).toBe(200)
    }
    // The queue drains: a request after the burst is accepted.
    const after = await fetch(url(), {
      method: 'POST',
      body: eventEnvelope({ event_id: eid(20_000), message: 'after' }),
    })
    expect(after.status).toBe(200)
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * 1024 * 1024)
    // Shed requests are counted as outcomes (summed in memory, written within about a second).
    const deadline = Date.now() + 15_000
    let counted = 0
    while (Date.now() < deadline) {
      const res = await app.inject({ url: `/api/0/projects/${p.id}/outcomes/`, headers: ADMIN })
      const rows = res.json<{ totals: { outcome: string; reason: string; quantity: number }[] }>()
        .totals
      counted = rows
        .filter((r) => r.outcome === 'rejected' && r.reason === 'overloaded')
        .reduce((a, r) => a + r.quantity, 0)
      if (counted >= shed.length) break
      await new Promise((r) => setTimeout(r, 100))
    }
    expect(counted).toBe(shed.length)
  }, 60_000)

  it('refuses a body past the global byte budget at once, and accepts again once it is free', async () => {
    const held = eventEnvelope({ event_id: eid(1), message: 'x'.repeat(BUDGET * 0.75) })
    const s = await openRaw(
      port,
      postHead(`/api/${p.id}/envelope/?sentry_key=${p.key}`, {
        'content-length': Buffer.byteLength(held),
      }),
      held.slice(0, Math.floor(BUDGET * 0.7)),
    )
    // Wait until the held request's bytes are counted.
    const deadline = Date.now() + 10_000
    while (app.ingestProtection.admission.usage().bytes < BUDGET * 0.6 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20))
    }
    const refused = await fetch(url(), {
      method: 'POST',
      body: eventEnvelope({ event_id: eid(2), message: 'y'.repeat(BUDGET / 2) }),
    })
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).not.toBeNull()
    s.write(held.slice(Math.floor(BUDGET * 0.7)))
    const first = await readResponse(s)
    s.destroy()
    expect(first.status).toBe(200)
    const again = await fetch(url(), {
      method: 'POST',
      body: eventEnvelope({ event_id: eid(2), message: 'y'.repeat(BUDGET / 2) }),
    })
    expect(again.status).toBe(200)
    expect(app.ingestProtection.admission.usage().bytes).toBe(0)
  }, 30_000)
})

describe('shedding on the main thread lag', () => {
  // Its own server with the default bounds (a queue bound of at least 256 units) and a long
  // group-commit delay, so a batch of 80 requests stays in flight: past LAG_MIN_UNITS (64),
  // below the queue bound. Only the lag rule can shed them.
  let lag: Served
  beforeAll(async () => {
    lag = await listening('lag.sqlite', {
      commitDelayMs: 150,
      protection: { ...DEFAULT_PROTECTION, diskMinFreeBytes: 0 },
    })
  })
  afterAll(async () => {
    await lag.app.close()
  })

  const lagUrl = () =>
    `http://127.0.0.1:${lag.port}/api/${lag.project.id}/envelope/?sentry_key=${lag.project.key}`
  const overloaded = async (): Promise<number> => {
    const res = await lag.app.inject({
      url: `/api/0/projects/${lag.project.id}/outcomes/`,
      headers: ADMIN,
    })
    return res
      .json<{ totals: { outcome: string; reason: string; quantity: number }[] }>()
      .totals.filter((r) => r.outcome === 'rejected' && r.reason === 'overloaded')
      .reduce((a, r) => a + r.quantity, 0)
  }
  const post = async (i: number) => {
    const res = await fetch(lagUrl(), {
      method: 'POST',
      headers: { origin: 'https://app.example' },
      body: eventEnvelope({ event_id: eid(30_000 + i), message: 'lagging' }),
    })
    return { status: res.status, headers: res.headers, body: await res.text() }
  }

  it('sheds before routing while the main thread is behind, and admits again once it catches up', async () => {
    // A saturated main thread, made by hand: 120 ms of synchronous work every few ms, so the
    // lag timer fires late and requests queue in front of the handlers, as under real overload.
    let hogging = true
    const hog = (): void => {
      if (!hogging) return
      const until = performance.now() + 120
      while (performance.now() < until) {}
      setTimeout(hog, 5)
    }
    let shed: Awaited<ReturnType<typeof post>> | undefined
    let early = 0
    let i = 0
    try {
      setTimeout(hog, 5)
      const deadline = Date.now() + 45_000
      while (shed === undefined && Date.now() < deadline) {
        const batch = await Promise.all(Array.from({ length: 80 }, () => post(i++)))
        for (const r of batch) {
          expect(r.status === 200 || r.status === 429, r.body).toBe(true)
          if (r.status === 429 && r.body.includes('shed before reading')) {
            early++
            shed = r
          }
        }
      }
    } finally {
      hogging = false
    }
    expect(shed, 'no request was shed while the main thread was behind').toBeDefined()
    const h = shed?.headers
    expect(h?.get('retry-after')).toBe(String(DEFAULT_PROTECTION.shedRetryAfterSeconds))
    expect(h?.get('x-sentry-rate-limits')).toMatch(/^\d+::organization:overloaded$/)
    expect(h?.get('access-control-allow-origin')).toBe('https://app.example')
    expect(h?.get('access-control-expose-headers')).toMatch(/x-sentry-rate-limits/)
    expect(JSON.parse(shed?.body ?? '{}').detail).toMatch(/overloaded/)
    // Once the thread keeps up, requests are admitted again.
    const deadline = Date.now() + 30_000
    let status = 0
    while (status !== 200 && Date.now() < deadline) {
      status = (await post(i++)).status
      if (status !== 200) await new Promise((r) => setTimeout(r, 50))
    }
    expect(status).toBe(200)
    // The early sheds are counted as `rejected:overloaded` like the others (polled: they are
    // tallied in memory and written about once a second).
    const until = Date.now() + 15_000
    let counted = await overloaded()
    while (counted < early && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100))
      counted = await overloaded()
    }
    expect(counted).toBeGreaterThanOrEqual(early)
  }, 120_000)

  it('does not shed a modest burst while the thread is behind for another reason', async () => {
    let hogging = true
    let cycles = 0
    const hog = (): void => {
      if (!hogging) return
      const until = performance.now() + 120
      while (performance.now() < until) {}
      cycles++
      setTimeout(hog, 5)
    }
    const statuses: number[] = []
    try {
      setTimeout(hog, 5)
      // Once the thread has been behind for a few cycles (polled), a few requests one by one.
      const deadline = Date.now() + 15_000
      while (cycles < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
      for (let k = 0; k < 5; k++) statuses.push((await post(50_000 + k)).status)
      // A burst below LAG_MIN_UNITS at once: a few SDKs flushing together is not an overload.
      const burst = await Promise.all(Array.from({ length: 40 }, (_, k) => post(51_000 + k)))
      statuses.push(...burst.map((r) => r.status))
    } finally {
      hogging = false
    }
    expect(statuses).toEqual(Array.from({ length: 45 }, () => 200))
  }, 60_000)
})

describe('bursts on a cold server', () => {
  // Default bounds, a fresh process-level app that has committed nothing yet: it has measured no
  // commit rate, and a stock SDK drops whatever it is refused, so a burst that the server
  // clears in well under a second must be accepted whole (a queue floor of 32 refused 8 of 40).
  let cold: Served
  beforeAll(async () => {
    cold = await listening('cold.sqlite', {
      protection: { ...DEFAULT_PROTECTION, diskMinFreeBytes: 0 },
    })
  })
  afterAll(async () => {
    await cold.app.close()
  })

  it('accepts and stores a burst of 200 concurrent events', async () => {
    const N = 200
    const statuses = await Promise.all(
      Array.from({ length: N }, async (_, i) => {
        const res = await fetch(
          `http://127.0.0.1:${cold.port}/api/${cold.project.id}/envelope/?sentry_key=${cold.project.key}`,
          {
            method: 'POST',
            body: eventEnvelope({ event_id: eid(70_000 + i), message: `burst ${i % 5}` }),
          },
        )
        await res.text()
        return res.status
      }),
    )
    expect(statuses.filter((s) => s !== 200)).toEqual([])
    const missing: number[] = []
    for (let i = 0; i < N; i++) {
      const ev = await cold.app.inject({
        url: `/api/0/projects/${cold.project.id}/events/${eid(70_000 + i)}/`,
        headers: ADMIN,
      })
      if (ev.statusCode !== 200) missing.push(i)
    }
    expect(missing).toEqual([])
  }, 60_000)
})
