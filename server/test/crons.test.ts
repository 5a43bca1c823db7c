import type { FastifyInstance } from 'fastify'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { adminGet } from './support/health-helpers.ts'
import { createProject, issuesOf, sendItems, type TestProject, testApp } from './support/helpers.ts'

const MINUTE = 60_000

/** `GET /monitors/` entries, as far as these tests read them. */
interface MonitorJson {
  slug: string
  status: string
  schedule: { type: string; value: string | number; unit?: string }
  timezone: string
  checkin_margin: number
  max_runtime: number
  failure_issue_threshold: number
  next_checkin: string | null
  last_checkin: string | null
  environments: {
    name: string
    status: string
    next_checkin: string | null
    next_checkin_latest: string | null
  }[]
}

interface RunJson {
  id: string
  status: string
  environment: string
  date_added: string
  expected_time: string | null
  duration: number | null
  event_id: string | null
}

let app: FastifyInstance
let project: TestProject
const stored: { eventId: string; issueCreated: boolean }[] = []

beforeEach(async () => {
  app = await testApp({ cronClockIntervalMs: 0 })
  project = await createProject(app, 'crons')
  stored.length = 0
  app.services.bus.on('event.stored', (e) => stored.push(e))
})
afterEach(async () => {
  await app.close()
})

const hex = () => crypto.randomUUID().replaceAll('-', '')

const CRONTAB = {
  schedule: { type: 'crontab', value: '*/5 * * * *' },
  checkin_margin: 2,
  max_runtime: 10,
  timezone: 'UTC',
}

function checkIn(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    check_in_id: hex(),
    monitor_slug: 'nightly-report',
    status: 'ok',
    environment: 'production',
    monitor_config: CRONTAB,
    ...over,
  }
}

async function send(payload: Record<string, unknown>): Promise<void> {
  const res = await sendItems(app, project, [['check_in', payload]])
  expect(res.statusCode, res.body).toBe(200)
  expect(res.json()).toEqual({})
}

async function monitors(): Promise<MonitorJson[]> {
  const r = await adminGet<MonitorJson[]>(app, `/api/0/projects/${project.id}/monitors/`)
  expect(r.status).toBe(200)
  return r.body
}

async function monitor(slug = 'nightly-report'): Promise<MonitorJson> {
  const r = await adminGet<MonitorJson>(app, `/api/0/projects/${project.id}/monitors/${slug}/`)
  expect(r.status, JSON.stringify(r.body)).toBe(200)
  return r.body
}

async function runs(slug = 'nightly-report', query = ''): Promise<RunJson[]> {
  const r = await adminGet<RunJson[]>(
    app,
    `/api/0/projects/${project.id}/monitors/${slug}/checkins/${query}`,
  )
  expect(r.status).toBe(200)
  return r.body
}

async function outcomes(): Promise<
  { outcome: string; reason: string; category: string; quantity: number }[]
> {
  const r = await adminGet<{
    totals: { outcome: string; reason: string; category: string; quantity: number }[]
  }>(app, `/api/0/projects/${project.id}/outcomes/`)
  return r.body.totals.filter((t) => t.category === 'monitor')
}

const ms = (iso: string | null): number => {
  if (iso === null) throw new Error('expected a time')
  return Date.parse(iso)
}

describe('monitors from check-ins', () => {
  it('creates the monitor from the first monitor_config, with its schedule', async () => {
    const before = Date.now()
    await send(checkIn({ status: 'in_progress' }))
    const [m] = await monitors()
    expect(m).toMatchObject({
      slug: 'nightly-report',
      status: 'active',
      schedule: { type: 'crontab', value: '*/5 * * * *' },
      timezone: 'UTC',
      checkin_margin: 2,
      max_runtime: 10,
      failure_issue_threshold: 1,
    })
    // The next 5-minute boundary after the check-in, and the deadline 2 minutes later.
    const next = ms(m?.next_checkin ?? null)
    expect(next % (5 * MINUTE)).toBe(0)
    expect(next).toBeGreaterThan(before)
    expect(next - before).toBeLessThanOrEqual(5 * MINUTE)
    expect(ms(m?.environments[0]?.next_checkin_latest ?? null) - next).toBe(2 * MINUTE)
  })

  it('computes the next run in the monitor time zone', async () => {
    await send(
      checkIn({
        monitor_slug: 'berlin',
        monitor_config: {
          schedule: { type: 'crontab', value: '0 3 * * *' },
          timezone: 'Europe/Berlin',
        },
      }),
    )
    const next = new Date(ms((await monitor('berlin')).next_checkin))
    const local = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Europe/Berlin',
      hour: '2-digit',
      minute: '2-digit',
    }).format(next)
    expect(local).toBe('03:00')
    expect(next.getTime() - Date.now()).toBeLessThanOrEqual(24 * 60 * MINUTE)
  })

  it('updates the monitor from a later monitor_config, keeping keys it does not name', async () => {
    await send(checkIn())
    await send(
      checkIn({
        monitor_config: { schedule: { type: 'interval', value: 2, unit: 'hour' }, max_runtime: 45 },
      }),
    )
    await send(checkIn({ monitor_config: undefined }))
    const list = await monitors()
    expect(list).toHaveLength(1)
    expect(list[0]).toMatchObject({
      schedule: { type: 'interval', value: 2, unit: 'hour' },
      checkin_margin: 2,
      max_runtime: 45,
      timezone: 'UTC',
      status: 'ok',
    })
    const last = ms(list[0]?.last_checkin ?? null)
    expect(ms(list[0]?.next_checkin ?? null)).toBe(
      Math.floor(last / MINUTE) * MINUTE + 120 * MINUTE,
    )
  })

  it('normalises slugs as Sentry does', async () => {
    await send(checkIn({ monitor_slug: '  Nightly Report!  ' }))
    expect((await monitors()).map((m) => m.slug)).toEqual(['nightly-report'])
  })

  it('rejects check-ins of unknown monitors without a usable config, and ignores a bad config of a known one', async () => {
    await send(checkIn({ monitor_slug: 'ghost', monitor_config: undefined }))
    await send(
      checkIn({
        monitor_slug: 'broken',
        monitor_config: { schedule: { type: 'crontab', value: 'hourly' } },
      }),
    )
    expect(await monitors()).toEqual([])
    await send(checkIn())
    await send(
      checkIn({ monitor_config: { schedule: { type: 'interval', value: 5, unit: 'second' } } }),
    )
    expect((await monitor()).schedule).toEqual({ type: 'crontab', value: '*/5 * * * *' })
    expect(await runs()).toHaveLength(2)
    const o = await outcomes()
    expect(o).toContainEqual(
      expect.objectContaining({ outcome: 'rejected', reason: 'monitor_not_found', quantity: 1 }),
    )
    expect(o).toContainEqual(
      expect.objectContaining({
        outcome: 'rejected',
        reason: 'invalid_monitor_config',
        quantity: 1,
      }),
    )
    expect(o).toContainEqual(expect.objectContaining({ outcome: 'accepted', quantity: 2 }))
  })

  it.each([
    ['a missing check_in_id', { check_in_id: undefined }],
    ['a bad check_in_id', { check_in_id: 'nope' }],
    ['an empty slug', { monitor_slug: '!!' }],
    ['a client-sent missed', { status: 'missed' }],
    ['a negative duration', { duration: -1 }],
  ])('answers 400 for %s', async (_what, over) => {
    const res = await sendItems(app, project, [['check_in', checkIn(over)]])
    expect(res.statusCode).toBe(400)
    expect(res.json<{ detail: string }>().detail).toMatch(/invalid check_in payload/)
  })
})

describe('runs', () => {
  it('opens a run with in_progress and closes it with ok and its duration', async () => {
    const id = hex()
    await send(checkIn({ check_in_id: id, status: 'in_progress' }))
    expect(await runs()).toMatchObject([{ id, status: 'in_progress', duration: null }])
    await send(checkIn({ check_in_id: id, status: 'ok', duration: 1.5, monitor_config: undefined }))
    const list = await runs()
    expect(list).toMatchObject([{ id, status: 'ok', duration: 1500, environment: 'production' }])
    expect((await monitor()).status).toBe('ok')
  })

  it('computes the duration of a closing check-in that has none', async () => {
    const id = hex()
    await send(checkIn({ check_in_id: id, status: 'in_progress' }))
    await send(checkIn({ check_in_id: id, status: 'ok', duration: null }))
    const [run] = await runs()
    expect(run?.duration).toBeGreaterThanOrEqual(0)
    expect(run?.duration).toBeLessThan(10_000)
  })

  it('records a closing check-in without an open run as a run of its own', async () => {
    const before = Date.now()
    await send(checkIn({ status: 'ok', duration: 90 }))
    const [run] = await runs()
    expect(run).toMatchObject({ status: 'ok', duration: 90_000 })
    expect(ms(run?.date_added ?? null)).toBeLessThanOrEqual(before - 89_000)
  })

  it('closes the newest open run for the all-zero id', async () => {
    const id = hex()
    await send(checkIn({ check_in_id: id, status: 'in_progress' }))
    await send(checkIn({ check_in_id: '0'.repeat(32), status: 'ok', duration: 3 }))
    expect(await runs()).toMatchObject([{ id, status: 'ok', duration: 3000 }])
  })

  it('ignores a late in_progress and refuses a second closing of a finished run', async () => {
    const id = hex()
    await send(checkIn({ check_in_id: id, status: 'ok' }))
    await send(checkIn({ check_in_id: id, status: 'in_progress' }))
    await send(checkIn({ check_in_id: id, status: 'error' }))
    expect(await runs()).toMatchObject([{ id, status: 'ok' }])
    expect(await issuesOf(app, project.id)).toEqual([])
    expect(await outcomes()).toContainEqual(
      expect.objectContaining({ outcome: 'rejected', reason: 'checkin_already_completed' }),
    )
  })

  it('keeps environments apart', async () => {
    await send(checkIn({ environment: 'staging', status: 'error' }))
    await send(checkIn({ environment: 'production' }))
    const m = await monitor()
    expect(m.environments.map((e) => [e.name, e.status])).toEqual([
      ['production', 'ok'],
      ['staging', 'error'],
    ])
    expect(m.status).toBe('error')
    expect(await runs('nightly-report', '?environment=staging')).toMatchObject([
      { status: 'error', environment: 'staging' },
    ])
  })
})

describe('failures become ordinary error events', () => {
  it('turns an error check-in into an issue of the monitor, announced on the bus', async () => {
    const id = hex()
    await send(checkIn({ check_in_id: id, status: 'in_progress', release: 'jobs@3' }))
    await send(checkIn({ check_in_id: id, status: 'error', duration: 4, release: 'jobs@3' }))
    await send(checkIn({ status: 'error' }))
    const issues = await issuesOf(app, project.id)
    expect(issues).toHaveLength(1)
    expect(issues[0]).toMatchObject({
      title: 'MonitorCheckInFailure: Cron monitor "nightly-report" reported a failed run',
      count: 2,
      level: 'error',
      culprit: 'nightly-report',
    })
    expect(stored.filter((e) => e.issueCreated)).toHaveLength(1)
    expect(stored).toHaveLength(2)
    const [newest, first] = await runs()
    expect(first?.event_id).toMatch(/^[0-9a-f]{32}$/)
    const ev = await adminGet<Record<string, unknown>>(
      app,
      `/api/0/projects/${project.id}/events/${first?.event_id}/`,
    )
    expect(ev.body).toMatchObject({
      environment: 'production',
      release: 'jobs@3',
      fingerprint: ['cron', 'nightly-report', 'error'],
      contexts: { monitor: { slug: 'nightly-report', check_in_id: id, duration_ms: 4000 } },
    })
    expect(newest?.event_id).not.toBe(first?.event_id)
  })

  it('reports a run that did not check in within the margin as missed, once', async () => {
    await send(checkIn())
    const deadline = ms((await monitor()).environments[0]?.next_checkin_latest ?? null)
    expect((await app.cronClock.tick(deadline - 1)).recorded).toBe(0)
    const tick = await app.cronClock.tick(deadline)
    expect(tick).toMatchObject({ held: true, recorded: 1 })
    expect(tick.events).toHaveLength(1)
    expect((await app.cronClock.tick(deadline + 1000)).recorded).toBe(0)
    const [missed] = await runs()
    expect(missed).toMatchObject({
      status: 'missed',
      expected_time: new Date(deadline - 2 * MINUTE).toISOString(),
    })
    expect(missed?.event_id).toBe(tick.events[0])
    expect((await monitor()).status).toBe('missed')
    const issues = await issuesOf(app, project.id)
    expect(issues).toMatchObject([
      {
        title:
          'MonitorCheckInMissed: Cron monitor "nightly-report" missed a run: no check-in within 2 min of the scheduled time',
        count: 1,
      },
    ])
    expect(stored).toEqual([
      expect.objectContaining({ eventId: tick.events[0], issueCreated: true }),
    ])
  })

  it('records every expected run missed while the clock did not run, each once', async () => {
    await send(checkIn())
    const first = ms((await monitor()).next_checkin)
    // Clock comes back 21.5 minutes after the first expected run: runs at +0, +5, +10, +15 are
    // past their 2-minute margin, the one at +20 is not yet.
    const back = first + 21.5 * MINUTE
    const tick = await app.cronClock.tick(back)
    expect(tick.recorded).toBe(4)
    expect((await app.cronClock.tick(back)).recorded).toBe(0)
    const missed = (await runs()).filter((r) => r.status === 'missed')
    expect(missed.map((r) => ms(r.expected_time)).sort()).toEqual(
      [0, 5, 10, 15].map((m) => first + m * MINUTE),
    )
    expect(ms((await monitor()).next_checkin)).toBe(first + 20 * MINUTE)
    const issues = await issuesOf(app, project.id)
    expect(issues).toHaveLength(1)
    expect(issues[0]?.count).toBe(4)
  })

  it('does not call a run missed when the job checks in on time', async () => {
    await send(checkIn())
    const first = ms((await monitor()).next_checkin)
    await send(checkIn())
    expect((await app.cronClock.tick(first - MINUTE)).recorded).toBe(0)
    expect(await issuesOf(app, project.id)).toEqual([])
  })

  it('never reports a monitor that never checked in', async () => {
    await send(checkIn({ monitor_slug: 'ghost', monitor_config: undefined }))
    const tick = await app.cronClock.tick(Date.now() + 365 * 24 * 60 * MINUTE)
    expect(tick.recorded).toBe(0)
    expect(await issuesOf(app, project.id)).toEqual([])
  })

  it('reports a run open longer than max_runtime as overrunning; its late ok keeps the timeout', async () => {
    const id = hex()
    const started = Date.now()
    await send(
      checkIn({
        check_in_id: id,
        status: 'in_progress',
        monitor_config: { ...CRONTAB, max_runtime: 1 },
      }),
    )
    // Heartbeats push the limit: a second in_progress restarts the max_runtime window.
    const tick = await app.cronClock.tick(started + MINUTE + 5_000)
    expect(tick.events).toHaveLength(1)
    const [run] = await runs()
    expect(run).toMatchObject({ id, status: 'timeout' })
    expect((await monitor()).status).toBe('timeout')
    await send(checkIn({ check_in_id: id, status: 'ok', duration: 75, monitor_config: undefined }))
    expect(await runs()).toMatchObject([{ id, status: 'timeout', duration: 75_000 }])
    const issues = await issuesOf(app, project.id)
    expect(issues).toMatchObject([
      {
        title:
          'MonitorCheckInTimeout: Cron monitor "nightly-report" is overrunning: still running after its max runtime of 1 min',
        count: 1,
      },
    ])
  })

  it('lets an in_progress heartbeat push the runtime limit out', async () => {
    const id = hex()
    await send(
      checkIn({
        check_in_id: id,
        status: 'in_progress',
        monitor_config: { ...CRONTAB, max_runtime: 1 },
      }),
    )
    const beat = Date.now()
    await send(checkIn({ check_in_id: id, status: 'in_progress', monitor_config: undefined }))
    expect((await app.cronClock.tick(beat + 50_000)).recorded).toBe(0)
    expect((await app.cronClock.tick(beat + 61_000)).recorded).toBe(1)
  })

  it('files missed, overrunning and failed runs as three issues of the monitor', async () => {
    const id = hex()
    await send(checkIn({ status: 'error' }))
    await send(checkIn({ check_in_id: id, status: 'in_progress' }))
    const m = await monitor()
    await app.cronClock.tick(Date.now() + 11 * MINUTE)
    const titles = (await issuesOf(app, project.id)).map((i) => i.title.split(':')[0]).sort()
    expect(titles).toEqual([
      'MonitorCheckInFailure',
      'MonitorCheckInMissed',
      'MonitorCheckInTimeout',
    ])
    expect(m.environments).toHaveLength(1)
  })

  it('opens an issue only after failure_issue_threshold consecutive failures', async () => {
    await send(checkIn({ monitor_config: { ...CRONTAB, failure_issue_threshold: 2 } }))
    await send(checkIn({ status: 'error' }))
    expect(await issuesOf(app, project.id)).toEqual([])
    const first = ms((await monitor()).next_checkin)
    // The missed run after the error is the second failure in a row.
    const tick = await app.cronClock.tick(first + 2 * MINUTE)
    expect(tick.events).toHaveLength(1)
    expect((await issuesOf(app, project.id)).map((i) => i.title.split(':')[0])).toEqual([
      'MonitorCheckInMissed',
    ])
    // An ok resets the count.
    await send(checkIn())
    await send(checkIn({ status: 'error' }))
    expect(await issuesOf(app, project.id)).toHaveLength(1)
  })

  it('finds missed interval runs', async () => {
    await send(
      checkIn({
        monitor_slug: 'every-10',
        monitor_config: {
          schedule: { type: 'interval', value: 10, unit: 'minute' },
          checkin_margin: 1,
        },
      }),
    )
    const m = await monitor('every-10')
    const next = ms(m.next_checkin)
    expect(next).toBe(Math.floor(ms(m.last_checkin) / MINUTE) * MINUTE + 10 * MINUTE)
    expect((await app.cronClock.tick(next + MINUTE - 1)).recorded).toBe(0)
    expect((await app.cronClock.tick(next + MINUTE)).recorded).toBe(1)
    expect(await issuesOf(app, project.id)).toHaveLength(1)
  })
})

describe('the test clock route', () => {
  it('is absent unless INGEST_TEST_CLOCK is set', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/0/internal/clock/tick/',
      headers: { authorization: 'Bearer test-admin-token' },
    })
    expect(res.statusCode).toBe(404)
  })

  it('runs the clock at the given time for admins', async () => {
    const test = await testApp({ cronClockIntervalMs: 0, testClock: true })
    try {
      const p = await createProject(test, 'tick')
      const res = await sendItems(test, p, [['check_in', checkIn()]])
      expect(res.statusCode).toBe(200)
      const m = await adminGet<MonitorJson[]>(test, `/api/0/projects/${p.id}/monitors/`)
      const latest = m.body[0]?.environments[0]?.next_checkin_latest ?? ''
      const noAuth = await test.inject({
        method: 'POST',
        url: `/api/0/internal/clock/tick/?now=${latest}`,
      })
      expect(noAuth.statusCode).toBe(401)
      const tick = await test.inject({
        method: 'POST',
        url: `/api/0/internal/clock/tick/?now=${encodeURIComponent(latest)}`,
        headers: { authorization: 'Bearer test-admin-token' },
      })
      expect(tick.statusCode).toBe(200)
      expect(tick.json()).toMatchObject({ held: true, now: latest, recorded: 1 })
      expect(await issuesOf(test, p.id)).toHaveLength(1)
      const bad = await test.inject({
        method: 'POST',
        url: '/api/0/internal/clock/tick/?now=later',
        headers: { authorization: 'Bearer test-admin-token' },
      })
      expect(bad.statusCode).toBe(400)
      const state = await adminGet<{ holder: string; node: string; last_tick: string }>(
        test,
        '/api/0/internal/clock/',
      )
      expect(state.body.holder).toBe(state.body.node)
      expect(state.body.last_tick).toBe(latest)
    } finally {
      await test.close()
    }
  })
})

describe('documentation', () => {
  it('lists the release-health and monitor routes in the OpenAPI document', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/0/openapi.json' })
    const paths = Object.keys(res.json<{ paths: Record<string, unknown> }>().paths)
    expect(paths).toEqual(
      expect.arrayContaining([
        '/api/0/projects/{projectId}/releases/',
        '/api/0/projects/{projectId}/releases/{release}/health/',
        '/api/0/projects/{projectId}/monitors/',
        '/api/0/projects/{projectId}/monitors/{slug}/checkins/',
      ]),
    )
    // The tick route exists only with INGEST_TEST_CLOCK=1, so it is documented only then.
    expect(paths).not.toContain('/api/0/internal/clock/tick/')
  })
})
