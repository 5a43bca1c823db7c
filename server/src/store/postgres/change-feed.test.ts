import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import {
  ADMIN,
  createProject,
  eid,
  eventEnvelope,
  postEnvelope,
} from '../../../test/support/helpers.ts'
import { createTestDatabase, type TestDatabase } from '../../../test/support/postgres-database.ts'
import { testConfig } from '../../../test/support/test-config.ts'
import { buildApp } from '../../app.ts'
import type { Change } from '../change-feed.ts'
import { PgChangeFeed } from './change-feed.ts'
import { openPostgresStore } from './index.ts'
import { PgListener } from './listener.ts'

// Two nodes on one PostgreSQL: two apps in this process, each with its own store (pool,
// caches, listening connection); nothing but the database connects them.

let db: TestDatabase | undefined
const closers: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c()
  await db?.drop()
  db = undefined
})

async function node(url: string) {
  const store = await openPostgresStore(url, { poolSize: 3 })
  const app = await buildApp(
    { ...testConfig(), databaseUrl: url, databasePoolSize: 3, cronClockIntervalMs: 0 },
    { store },
  )
  closers.push(() => app.close())
  return app
}

/** Polls `check` until it holds; fails after `budgetMs`. Resolves with the time it took. */
async function within(budgetMs: number, check: () => Promise<boolean>): Promise<number> {
  const start = Date.now()
  while (!(await check())) {
    if (Date.now() - start > budgetMs) throw new Error(`not within ${budgetMs} ms`)
    await new Promise((r) => setTimeout(r, 20))
  }
  return Date.now() - start
}

describe('configuration changes reach every node on PostgreSQL', () => {
  it('a key revoked through one node is refused by the other within 2 s', async () => {
    db = await createTestDatabase()
    const a = await node(db.url)
    const b = await node(db.url)
    const p = await createProject(a)
    // Node B caches the key as valid (its cache lives 30 s).
    const ok = await postEnvelope(b, p.id, p.key, eventEnvelope({ event_id: eid(1), message: 'x' }))
    expect(ok.statusCode).toBe(200)
    const keys = await a.inject({
      method: 'GET',
      url: `/api/0/projects/${p.id}/keys/`,
      headers: ADMIN,
    })
    const keyId = keys.json<{ id: number }[]>()[0]?.id
    const revoked = await a.inject({
      method: 'DELETE',
      url: `/api/0/projects/${p.id}/keys/${keyId}/`,
      headers: ADMIN,
    })
    expect(revoked.statusCode).toBe(204)
    let n = 1
    await within(2000, async () => {
      n++
      const r = await postEnvelope(
        b,
        p.id,
        p.key,
        eventEnvelope({ event_id: eid(n), message: 'x' }),
      )
      return r.statusCode === 403
    })
  })

  it('a changed quota is in force on the other node at once: the count is shared', async () => {
    db = await createTestDatabase()
    const a = await node(db.url)
    const b = await node(db.url)
    const p = await createProject(a)
    const set = await a.inject({
      method: 'PUT',
      url: `/api/0/projects/${p.id}/`,
      headers: ADMIN,
      payload: { quota: { events: 2, window_seconds: 3600 } },
    })
    expect(set.statusCode).toBe(200)
    const codes: number[] = []
    for (let i = 0; i < 4; i++) {
      const app = i % 2 === 0 ? a : b
      codes.push(
        (
          await postEnvelope(
            app,
            p.id,
            p.key,
            eventEnvelope({ event_id: eid(i + 1), message: 'q' }),
          )
        ).statusCode,
      )
    }
    expect(codes).toEqual([200, 200, 429, 429])
  })

  it('after its listening connection is lost a node reconnects and drops every cache', async () => {
    db = await createTestDatabase()
    const poolA = await openPostgresStore(db.url, { poolSize: 2 })
    closers.push(() => poolA.close())
    const feed = poolA.changes as PgChangeFeed
    expect(feed).toBeInstanceOf(PgChangeFeed)
    const seen: Change[] = []
    feed.onChange((c) => seen.push(c))
    const listener = poolA.notices as PgListener
    expect(listener).toBeInstanceOf(PgListener)
    const pid = listener.listenerPid()
    expect(pid).toBeTypeOf('number')
    expect(feed.stats()).toMatchObject({ reconnects: 0, connected: true })
    const admin = new pg.Client(db.url)
    await admin.connect()
    closers.push(() => admin.end())
    await admin.query('SELECT pg_terminate_backend($1)', [pid])
    await within(10_000, async () => seen.some((c) => c.topic === 'all'))
    expect(listener.listenerPid()).not.toBe(pid)
    // `/metrics` sees the reconnect (ingest_pg_change_feed_reconnects_total).
    expect(feed.stats()).toMatchObject({ reconnects: 1, connected: true })
    // The new connection listens: a notice from another session arrives.
    await admin.query(`SELECT pg_notify('ingest_changes', '{"topic":"keys","projectId":7}')`)
    await within(2000, async () => seen.some((c) => c.topic === 'keys' && c.projectId === 7))
    // A notice that says when it was sent gives the feed's delay: one sent 1.5 s "ago".
    const sentAt = Date.now() - 1500
    await admin.query(
      `SELECT pg_notify('ingest_changes', '{"topic":"keys","projectId":8,"sentAt":${sentAt}}')`,
    )
    await within(2000, async () => seen.some((c) => c.topic === 'keys' && c.projectId === 8))
    expect(feed.stats().lagMs).toBeGreaterThanOrEqual(1500)
  })
})
