import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createProject, eid, eventEnvelope, sentryAuth } from '../../test/support/helpers.ts'
import { createTestDatabase, type TestDatabase } from '../../test/support/postgres-database.ts'
import { openSse } from '../../test/support/sse-client.ts'
import { testConfig } from '../../test/support/test-config.ts'
import { createUser, signIn, type UiClient } from '../../test/support/ui-helpers.ts'
import { buildApp } from '../app.ts'
import { LISTENER_APPLICATION_NAME, PgListener } from '../store/postgres/listener.ts'
import { LiveBus } from './bus.ts'
import { postgresFeed } from './postgres-feed.ts'

// Two apps, two pools, two listening connections on one database: two nodes.
let db: TestDatabase
let a: FastifyInstance
let b: FastifyInstance
let baseA: string
let baseB: string
let uiB: UiClient
const node = async (): Promise<[FastifyInstance, string]> => {
  const app = await buildApp(testConfig({ databaseUrl: db.url, databasePoolSize: 2 }))
  await app.listen({ host: '127.0.0.1', port: 0 })
  return [app, `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`]
}
beforeAll(async () => {
  db = await createTestDatabase()
  ;[a, baseA] = await node()
  ;[b, baseB] = await node()
  await createUser(b)
  uiB = await signIn(b)
})
afterAll(async () => {
  await a?.close()
  await b?.close()
  await db?.drop()
})

const sendVia = (base: string, projectId: number, key: string, eventId: string) =>
  fetch(`${base}/api/${projectId}/envelope/`, {
    method: 'POST',
    headers: { 'x-sentry-auth': sentryAuth(key) },
    body: eventEnvelope({ event_id: eventId, message: `m ${eventId}`, level: 'error' }),
  })

describe('live notices across nodes on PostgreSQL', () => {
  it('an event stored through one node reaches a stream on another within a second, and resumes there', async () => {
    const p = await createProject(a, 'across')
    const url = `${baseB}/ui/live?project=${p.id}`
    const stream = await openSse(url, { cookie: uiB.cookie })
    let lastId: string
    try {
      const t0 = Date.now()
      expect((await sendVia(baseA, p.id, p.key, eid(1))).status).toBe(200)
      const msg = await stream.next(5000)
      // The budget counts from the 200 to the notice on the other node's stream.
      expect(Date.now() - t0).toBeLessThan(1000)
      expect(JSON.parse(msg?.data ?? '{}')).toMatchObject({ eventId: eid(1), issueCreated: true })
      lastId = msg?.id ?? ''
    } finally {
      stream.close()
    }
    expect((await sendVia(baseA, p.id, p.key, eid(2))).status).toBe(200)
    expect((await sendVia(baseB, p.id, p.key, eid(3))).status).toBe(200)
    const resumed = await openSse(url, { cookie: uiB.cookie, 'last-event-id': lastId })
    try {
      const got = [await resumed.next(5000), await resumed.next(5000)]
      expect(got.map((m) => JSON.parse(m?.data ?? '{}').eventId).sort()).toEqual([eid(2), eid(3)])
      expect(await resumed.next(500)).toBeUndefined()
    } finally {
      resumed.close()
    }
  })

  it('a node whose listening connection was cut ends its streams and listens again', async () => {
    const p = await createProject(a, 'reconnect')
    const url = `${baseB}/ui/live?project=${p.id}`
    const stream = await openSse(url, { cookie: uiB.cookie })
    const admin = new pg.Client({ connectionString: db.url })
    await admin.connect()
    try {
      const cut = await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE datname = current_database() AND application_name = $1`,
        [LISTENER_APPLICATION_NAME],
      )
      // One listening connection per node, shared by the live feed and the change feed.
      expect(cut.rowCount).toBe(2)
      // The browser would reconnect (`retry:`) with its Last-Event-ID.
      expect(await stream.ended(10_000)).toBe(true)
    } finally {
      stream.close()
      await admin.end()
    }
    // Both nodes listen again: a new stream on B gets an event stored through A.
    const deadline = Date.now() + 15_000
    let n = 10
    for (;;) {
      const again = await openSse(url, { cookie: uiB.cookie })
      try {
        expect((await sendVia(baseA, p.id, p.key, eid(n++))).status).toBe(200)
        const msg = await again.next(1000)
        if (msg !== undefined) {
          expect(msg.event).toBe('stored')
          break
        }
      } finally {
        again.close()
      }
      if (Date.now() > deadline) throw new Error('no notice after the listener reconnect')
    }
  })
})

describe('a node without open streams', () => {
  it('leaves the notices of every node unread until a stream watches', async () => {
    const listener = await PgListener.open(db.url)
    const bus = new LiveBus()
    const feed = await postgresFeed(bus, listener, { warn: () => undefined })
    const got: number[] = []
    let asked = 0
    // Not watching when the first notice arrives, watching from the second on.
    feed.subscribe({
      notice: (n) => got.push(n.id),
      gap: () => undefined,
      watching: () => asked++ > 0,
    })
    const until = async (done: () => boolean) => {
      const deadline = Date.now() + 5_000
      while (!done()) {
        if (Date.now() > deadline) throw new Error('no notice within 5 s')
        await new Promise((r) => setTimeout(r, 10))
      }
    }
    const stored = (rowId: number) => ({
      projectId: 1,
      issueId: 1,
      eventId: eid(rowId),
      issueCreated: false,
      regressed: false,
      rowId,
    })
    try {
      bus.emit('event.stored', stored(1))
      await until(() => asked === 1)
      bus.emit('event.stored', stored(2))
      await until(() => got.length === 1)
      expect(got).toEqual([2])
      expect(asked).toBe(2)
    } finally {
      await feed.close()
      await listener.close()
    }
  })
})
