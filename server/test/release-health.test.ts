import type { FastifyInstance } from 'fastify'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { adminGet, type HealthJson, releasesOf, session } from './support/health-helpers.ts'
import {
  ADMIN,
  createProject,
  eid,
  sendItems,
  type TestProject,
  testApp,
} from './support/helpers.ts'

const HOUR = 3_600_000

let app: FastifyInstance
let project: TestProject

beforeEach(async () => {
  app = await testApp()
  project = await createProject(app, 'health')
})
afterEach(async () => {
  await app.close()
})

/** Sends each payload as its own `session` envelope and expects 200. */
async function sendSessions(...payloads: Record<string, unknown>[]): Promise<void> {
  for (const p of payloads) {
    const res = await sendItems(app, project, [['session', p]])
    expect(res.statusCode, res.body).toBe(200)
  }
}

async function healthOf(release = 'r@1', query = ''): Promise<HealthJson> {
  const list = await releasesOf(app, project.id, query)
  const r = list.find((x) => x.version === release)
  if (r === undefined) throw new Error(`release ${release} not listed: ${JSON.stringify(list)}`)
  return r.health
}

describe('session items', () => {
  it('3 sessions, 1 crashed: crash-free session rate 66.7 %', async () => {
    await sendSessions(
      session({ did: 'alice' }),
      session({ did: 'bob' }),
      session({ did: 'carol', status: 'crashed', errors: 1 }),
    )
    const h = await healthOf()
    expect(h).toMatchObject({
      sessions: 3,
      sessions_healthy: 2,
      sessions_crashed: 1,
      sessions_errored: 0,
      users: 3,
      users_crashed: 1,
    })
    expect(h.crash_free_sessions).toBeCloseTo(66.667, 2)
    expect(h.crash_free_users).toBeCloseTo(66.667, 2)
  })

  it('counts a session once however often its updates arrive, and keeps its final state', async () => {
    const sid = 'a'.repeat(32)
    const started = new Date().toISOString()
    // JS: init ok, a resend of it, then exited; Python: one update with init true.
    const first = session({ sid, started, status: 'ok', init: true, did: 'u1' })
    await sendSessions(first, first, session({ sid, started, status: 'exited', init: false }))
    const crashedSid = 'b'.repeat(32)
    await sendSessions(
      session({ sid: crashedSid, started, status: 'ok', did: 'u1' }),
      session({ sid: crashedSid, started, status: 'crashed', errors: 1, init: false }),
      // A stale ok arriving after the crash does not undo it.
      session({ sid: crashedSid, started, status: 'ok', init: false }),
    )
    const h = await healthOf()
    expect(h).toMatchObject({ sessions: 2, sessions_healthy: 1, sessions_crashed: 1 })
    expect(h).toMatchObject({ users: 1, users_crashed: 1, crash_free_users: 0 })
    expect(h.crash_free_sessions).toBe(50)
  })

  it('classifies errored, abnormal and unhandled sessions', async () => {
    await sendSessions(
      session({ status: 'exited', errors: 2 }),
      session({ status: 'ok', errors: 1 }),
      session({ status: 'errored' }),
      session({ status: 'abnormal' }),
      session({ status: 'unhandled', errors: 1 }),
      session({ status: 'exited' }),
      // A status from a future SDK counts like ok.
      session({ status: 'paused' }),
    )
    expect(await healthOf()).toMatchObject({
      sessions: 7,
      sessions_errored: 3,
      sessions_abnormal: 1,
      sessions_unhandled: 1,
      sessions_healthy: 2,
      sessions_crashed: 0,
      crash_free_sessions: 100,
      users: 0,
      crash_free_users: null,
    })
  })

  it('moves an errored session to crashed when it crashes later', async () => {
    const sid = crypto.randomUUID()
    const started = new Date().toISOString()
    await sendSessions(
      session({ sid, started, status: 'ok', errors: 1 }),
      session({ sid, started, status: 'crashed', errors: 2, init: false }),
    )
    expect(await healthOf()).toMatchObject({
      sessions: 1,
      sessions_errored: 0,
      sessions_crashed: 1,
    })
  })

  it('takes several sessions in one envelope next to an event (Rust, Python flush)', async () => {
    const res = await sendItems(app, project, [
      ['event', { event_id: eid(1), message: 'with a session', level: 'error' }],
      ['session', session({ status: 'ok', errors: 1 })],
      ['session', session({ status: 'exited' })],
    ])
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ id: eid(1) })
    expect(await healthOf()).toMatchObject({ sessions: 2, sessions_errored: 1 })
  })

  it('keeps releases and environments apart', async () => {
    await sendSessions(
      session({ attrs: { release: 'app@1.0', environment: 'production' } }),
      session({ attrs: { release: 'app@1.0', environment: 'staging' }, status: 'crashed' }),
      session({ attrs: { release: 'app@2.0', environment: 'production' } }),
      session({ attrs: { release: 'app@2.0' } }),
    )
    const list = await releasesOf(app, project.id)
    expect(list.map((r) => r.version).sort()).toEqual(['app@1.0', 'app@2.0'])
    const one = list.find((r) => r.version === 'app@1.0')
    expect(one?.environments).toEqual(['production', 'staging'])
    expect(one?.health).toMatchObject({ sessions: 2, sessions_crashed: 1 })
    expect(list.find((r) => r.version === 'app@2.0')?.environments).toEqual([null, 'production'])
    const prod = await releasesOf(app, project.id, '?environment=production')
    expect(prod.find((r) => r.version === 'app@1.0')?.health).toMatchObject({
      sessions: 1,
      crash_free_sessions: 100,
    })
  })

  it('rejects a session without a release, with nothing of the envelope stored', async () => {
    const res = await sendItems(app, project, [
      ['event', { event_id: eid(2), message: 'dropped with it', level: 'error' }],
      ['session', { sid: 'x', started: new Date().toISOString(), status: 'exited', attrs: {} }],
    ])
    expect(res.statusCode).toBe(400)
    expect(res.json<{ detail: string }>().detail).toMatch(/invalid session payload: attrs\.release/)
    expect(await releasesOf(app, project.id)).toEqual([])
    const ev = await adminGet(app, `/api/0/projects/${project.id}/events/${eid(2)}/`)
    expect(ev.status).toBe(404)
  })

  it('takes 100 session items per envelope and refuses more with 413, as Relay does', async () => {
    const many = (n: number, release: string): [string, Record<string, unknown>][] =>
      Array.from({ length: n }, (_, i) => [
        i % 2 === 0 ? 'session' : 'sessions',
        i % 2 === 0
          ? session({ attrs: { release: `${release}-${i}` } })
          : {
              attrs: { release: `${release}-${i}` },
              aggregates: [{ started: new Date().toISOString(), exited: 1 }],
            },
      ])
    expect((await sendItems(app, project, many(100, 'ok'))).statusCode).toBe(200)
    const res = await sendItems(app, project, many(101, 'over'))
    expect(res.statusCode).toBe(413)
    expect(res.json<{ detail: string }>().detail).toMatch(
      /envelope exceeded size limits for type 'session' \(101 > 100 items\)/,
    )
    const listed = (await releasesOf(app, project.id)).map((r) => r.version)
    expect(listed).toHaveLength(100)
    expect(listed.some((v) => v.startsWith('over-'))).toBe(false)
  })

  it.each([
    ['not JSON', '{"sid":'],
    ['no started', JSON.stringify({ sid: 'x', status: 'ok', attrs: { release: 'r' } })],
    ['a bad started', JSON.stringify(session({ started: 'yesterday' }))],
    ['negative errors', JSON.stringify(session({ errors: -1 }))],
  ])('answers 400 for a session item with %s', async (_what, payload) => {
    const res = await sendItems(app, project, [['session', payload]])
    expect(res.statusCode).toBe(400)
    expect(res.json<{ detail: string }>().detail).toMatch(/invalid session payload/)
  })
})

describe('sessions items (aggregates)', () => {
  it('adds the buckets of server SDKs to the rollups', async () => {
    const minute = new Date(Math.floor(Date.now() / 60_000) * 60_000).toISOString()
    const res = await sendItems(app, project, [
      [
        'sessions',
        {
          attrs: { release: 'api@2', environment: 'production' },
          aggregates: [
            { started: minute, exited: 120, errored: 3 },
            { started: minute, did: 'u-7', crashed: 1 },
            { started: minute, did: 'u-8', exited: 2 },
          ],
        },
      ],
    ])
    expect(res.statusCode).toBe(200)
    const h = await healthOf('api@2')
    expect(h).toMatchObject({
      sessions: 126,
      sessions_healthy: 122,
      sessions_errored: 3,
      sessions_crashed: 1,
      users: 2,
      users_crashed: 1,
      crash_free_users: 50,
    })
    expect(h.crash_free_sessions).toBeCloseTo((100 * 125) / 126, 6)
  })

  it('combines aggregates and single sessions of one release', async () => {
    const started = new Date().toISOString()
    await sendItems(app, project, [
      ['sessions', { attrs: { release: 'r@1' }, aggregates: [{ started, exited: 2 }] }],
    ])
    await sendSessions(session({ status: 'crashed', attrs: { release: 'r@1' } }))
    expect(await healthOf()).toMatchObject({ sessions: 3, sessions_crashed: 1 })
  })

  it('answers 400 for aggregates without attrs', async () => {
    const res = await sendItems(app, project, [['sessions', { aggregates: [] }]])
    expect(res.statusCode).toBe(400)
  })
})

describe('time ranges and the hourly series', () => {
  const hourAgo = (n: number) => Math.floor(Date.now() / HOUR) * HOUR - n * HOUR
  const at = (ms: number) => new Date(ms + 60_000).toISOString()

  beforeEach(async () => {
    // Two hours ago: 2 sessions, 1 crashed; now: 2 healthy; ten days ago: 1 crashed.
    await sendSessions(
      session({ started: at(hourAgo(2)), did: 'u1' }),
      session({ started: at(hourAgo(2)), status: 'crashed', did: 'u2' }),
      session({ started: at(hourAgo(0)), did: 'u1' }),
      session({ started: at(hourAgo(0)), did: 'u2' }),
      session({ started: at(hourAgo(240)), status: 'crashed', did: 'u3' }),
    )
  })

  it('gives figures for any range', async () => {
    expect(await healthOf()).toMatchObject({ sessions: 5, sessions_crashed: 2, users: 3 })
    const since = new Date(hourAgo(1)).toISOString()
    expect(await healthOf('r@1', `?since=${since}`)).toMatchObject({
      sessions: 2,
      crash_free_sessions: 100,
      users: 2,
      crash_free_users: 100,
    })
    const window = `?since=${hourAgo(3) / 1000}&until=${hourAgo(1) / 1000}`
    expect(await healthOf('r@1', window)).toMatchObject({
      sessions: 2,
      crash_free_sessions: 50,
      users: 2,
      users_crashed: 1,
    })
    // A user who crashed in one hour and was fine in another counts as crashed for the range.
    expect(await healthOf('r@1', '?since=0')).toMatchObject({ users: 3, users_crashed: 2 })
  })

  it('serves an hourly crash-free series per release for the chart', async () => {
    const r = await adminGet<{
      totals: HealthJson
      interval: string
      series: ({ time: string } & HealthJson)[]
    }>(app, `/api/0/projects/${project.id}/releases/r%401/health/?since=${hourAgo(5) / 1000}`)
    expect(r.status).toBe(200)
    expect(r.body.interval).toBe('1h')
    expect(r.body.series).toHaveLength(6)
    const byTime = new Map(r.body.series.map((p) => [p.time, p]))
    expect(byTime.get(new Date(hourAgo(2)).toISOString())).toMatchObject({
      sessions: 2,
      sessions_crashed: 1,
      crash_free_sessions: 50,
    })
    expect(byTime.get(new Date(hourAgo(0)).toISOString())).toMatchObject({
      sessions: 2,
      crash_free_sessions: 100,
    })
    expect(byTime.get(new Date(hourAgo(1)).toISOString())).toMatchObject({
      sessions: 0,
      crash_free_sessions: null,
    })
    expect(r.body.totals).toMatchObject({ sessions: 4, sessions_crashed: 1, users: 2 })
  })

  it('answers 404 for an unknown release and 400 for a bad range', async () => {
    const none = await adminGet(app, `/api/0/projects/${project.id}/releases/nope/health/`)
    expect(none.status).toBe(404)
    const bad = await adminGet(app, `/api/0/projects/${project.id}/releases/?since=soon`)
    expect(bad.status).toBe(400)
    const reversed = await adminGet(
      app,
      `/api/0/projects/${project.id}/releases/?since=${hourAgo(1) / 1000}&until=${hourAgo(3) / 1000}`,
    )
    expect(reversed.status).toBe(400)
    const missing = await adminGet(app, '/api/0/projects/999999/releases/')
    expect(missing.status).toBe(404)
  })
})

describe('sessions and the rest of the server', () => {
  it('pages the release list with limit and x-next-cursor, and refuses a bad cursor with 400', async () => {
    const hour = Math.floor(Date.now() / HOUR) * HOUR
    await sendSessions(
      ...[0, 1, 2].map((i) =>
        session({ started: new Date(hour - i * HOUR).toISOString(), attrs: { release: `p${i}` } }),
      ),
    )
    const url = `/api/0/projects/${project.id}/releases/?limit=2`
    const first = await adminGet<{ version: string }[]>(app, url)
    expect(first.body.map((r) => r.version)).toEqual(['p0', 'p1'])
    const next = first.headers['x-next-cursor']
    expect(typeof next).toBe('string')
    const second = await adminGet<{ version: string }[]>(app, `${url}&cursor=${String(next)}`)
    expect(second.body.map((r) => r.version)).toEqual(['p2'])
    expect(second.headers['x-next-cursor']).toBeUndefined()
    const bad = await adminGet<{ detail: string }>(app, `${url}&cursor=p1`)
    expect(bad.status).toBe(400)
    expect(bad.body.detail).toMatch(/cursor/)
  })

  it('finds releases whose names need escaping in the path', async () => {
    await sendSessions(session({ attrs: { release: 'web/app 1.0+build' } }))
    const r = await adminGet<{ version: string }>(
      app,
      `/api/0/projects/${project.id}/releases/${encodeURIComponent('web/app 1.0+build')}/health/`,
    )
    expect(r.status).toBe(200)
    expect(r.body.version).toBe('web/app 1.0+build')
  })

  it('lists a release named with a lone surrogate as the name its health answers to', async () => {
    await sendSessions(session({ attrs: { release: 'x\udc00y', environment: 'e\ud800' } }))
    const list = await releasesOf(app, project.id, '')
    expect(list.map((r) => r.version)).toEqual(['x\ufffdy'])
    const r = await adminGet<{ version: string }>(
      app,
      `/api/0/projects/${project.id}/releases/${encodeURIComponent('x\ufffdy')}/health/?environment=${encodeURIComponent('e\ufffd')}`,
    )
    expect(r.status).toBe(200)
    expect(r.body.version).toBe('x\ufffdy')
  })

  it('costs no quota and counts sessions as accepted outcomes', async () => {
    const put = await app.inject({
      method: 'PUT',
      url: `/api/0/projects/${project.id}/`,
      headers: ADMIN,
      payload: { quota: { events: 1, window_seconds: 3600 } },
    })
    expect(put.statusCode).toBe(200)
    for (let i = 0; i < 3; i++) await sendSessions(session())
    const started = new Date().toISOString()
    const agg = await sendItems(app, project, [
      ['sessions', { attrs: { release: 'r@1' }, aggregates: [{ started, exited: 4, crashed: 1 }] }],
    ])
    expect(agg.statusCode).toBe(200)
    const out = await adminGet<{
      totals: { outcome: string; category: string; quantity: number }[]
    }>(app, `/api/0/projects/${project.id}/outcomes/`)
    const accepted = out.body.totals.filter(
      (t) => t.outcome === 'accepted' && t.category === 'session',
    )
    expect(accepted.reduce((n, t) => n + t.quantity, 0)).toBe(8)
    expect(await healthOf()).toMatchObject({ sessions: 8 })
  })

  it('corrects the times of a client whose clock is off (sent_at)', async () => {
    const skew = 30 * 24 * HOUR
    const clientNow = Date.now() - skew
    const res = await sendItems(
      app,
      project,
      [['session', session({ started: new Date(clientNow).toISOString() })]],
      { sent_at: new Date(clientNow).toISOString() },
    )
    expect(res.statusCode).toBe(200)
    const since = new Date(Date.now() - HOUR).toISOString()
    expect(await healthOf('r@1', `?since=${since}`)).toMatchObject({ sessions: 1 })
  })
})
