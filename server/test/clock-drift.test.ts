import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Config } from '../src/config.ts'
import {
  ADMIN,
  createProject,
  eid,
  sendItems,
  type TestProject,
  testApp,
} from './support/helpers.ts'

/**
 * An SDK on a device whose clock is wrong: the envelope's `sent_at` against the receive time
 * moves its events' times when the clock is off by 55 minutes or more (Relay's
 * `MINIMUM_CLOCK_DRIFT`), on every path an event's digest takes (the store's write in front of
 * the database, SQLite's writer thread, the digest threads). SQLite and PostgreSQL.
 */

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'clock-drift-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

const HOUR = 3_600_000
const MIN = 60_000

interface Stored {
  timestamp: number
  received: string
  breadcrumbs?: { values: { timestamp?: number }[] }
  errors?: { type: string; name: string; sdk_time?: string; server_time?: string }[]
}

async function stored(app: FastifyInstance, p: TestProject, n: number): Promise<Stored> {
  const res = await app.inject({ url: `/api/0/projects/${p.id}/events/${eid(n)}/`, headers: ADMIN })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<Stored>()
}

/**
 * Sends one event from a device whose clock is `behind` ms behind (negative: ahead): the event
 * happened 5 s before the envelope was sent, its breadcrumb 10 s before, by the device's clock.
 */
async function sendFromDevice(
  app: FastifyInstance,
  p: TestProject,
  n: number,
  behind: number,
  sentAt?: unknown,
) {
  const device = Date.now() - behind
  const event = {
    event_id: eid(n),
    timestamp: (device - 5000) / 1000,
    message: `drift ${n}`,
    breadcrumbs: [{ timestamp: (device - 10_000) / 1000, message: 'clicked' }],
  }
  const header = { event_id: eid(n), sent_at: sentAt ?? new Date(device).toISOString() }
  const res = await sendItems(app, p, [['event', event]], header)
  expect(res.statusCode, res.body).toBe(200)
  return { device }
}

const paths: { name: string; config: () => Partial<Config> }[] = [
  { name: 'the digest on the write (in-memory store)', config: () => ({}) },
  {
    name: 'the digest on the write (a database file: SQLite’s writer thread)',
    config: () => ({ databasePath: join(dir, 'writer.db') }),
  },
  { name: 'digest threads', config: () => ({ digestThreads: 1 }) },
]

describe.each(paths)('$name', ({ config }) => {
  let app: FastifyInstance
  let p: TestProject
  beforeAll(async () => {
    app = await testApp(config())
    p = await createProject(app, 'drift')
  })
  afterAll(async () => {
    await app?.close()
  })

  it('dates an event from a clock 2 h behind when it happened, breadcrumbs alike, noted', async () => {
    const before = Date.now()
    const { device } = await sendFromDevice(app, p, 1, 2 * HOUR)
    const after = Date.now()
    const e = await stored(app, p, 1)
    // About the receive time (5 s before it), not 2 h back.
    expect(e.timestamp * 1000).toBeGreaterThanOrEqual(before - 5000 - 50)
    expect(e.timestamp * 1000).toBeLessThanOrEqual(after - 5000 + 50)
    expect(Math.abs(e.timestamp * 1000 - (Date.parse(e.received) - 5000))).toBeLessThan(1000)
    expect((e.timestamp - (e.breadcrumbs?.values[0]?.timestamp ?? 0)) * 1000).toBeCloseTo(5000, -1)
    expect(e.errors).toEqual([
      {
        type: 'clock_drift',
        name: 'timestamp',
        sdk_time: new Date(device).toISOString(),
        server_time: expect.any(String),
      },
    ])
    const server = Date.parse(e.errors?.[0]?.server_time ?? '')
    expect(server).toBeGreaterThanOrEqual(before)
    expect(server).toBeLessThanOrEqual(after)
  })

  it('dates an event from a clock 2 h ahead when it happened', async () => {
    const before = Date.now()
    await sendFromDevice(app, p, 2, -2 * HOUR)
    const e = await stored(app, p, 2)
    expect(Math.abs(e.timestamp * 1000 - (before - 5000))).toBeLessThan(2000)
    expect(e.errors?.map((n) => n.type)).toEqual(['clock_drift'])
  })

  it('keeps the time of a clock 10 min behind (under 55 min: latency or a small drift)', async () => {
    const { device } = await sendFromDevice(app, p, 3, 10 * MIN)
    const e = await stored(app, p, 3)
    expect(e.timestamp * 1000).toBeCloseTo(device - 5000, -1)
    expect(e.errors).toBeUndefined()
  })

  it('keeps the time as sent when sent_at is no time (the envelope is not refused)', async () => {
    const { device } = await sendFromDevice(app, p, 4, 2 * HOUR, 'yesterday at noon')
    const e = await stored(app, p, 4)
    expect(e.timestamp * 1000).toBeCloseTo(device - 5000, -1)
    expect(e.errors).toBeUndefined()
  })
})

describe('requests without an envelope header', () => {
  let app: FastifyInstance
  let p: TestProject
  beforeAll(async () => {
    app = await testApp()
    p = await createProject(app, 'store')
  })
  afterAll(async () => {
    await app?.close()
  })

  it('leaves a /store/ event as sent: X-Sentry-Auth’s sentry_timestamp is not read (Relay)', async () => {
    const device = Date.now() - 2 * HOUR
    const res = await app.inject({
      method: 'POST',
      url: `/api/${p.id}/store/`,
      headers: {
        'content-type': 'application/json',
        'x-sentry-auth': `Sentry sentry_key=${p.key}, sentry_version=7, sentry_timestamp=${device / 1000}, sentry_client=raven-python/6.10.0`,
      },
      payload: { event_id: eid(5), timestamp: (device - 5000) / 1000, message: 'legacy' },
    })
    expect(res.statusCode, res.body).toBe(200)
    const e = await stored(app, p, 5)
    expect(e.timestamp * 1000).toBeCloseTo(device - 5000, -1)
    expect(e.errors).toBeUndefined()
  })
})
