import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type Database from 'better-sqlite3'
import type { FastifyInstance } from 'fastify'
import type pg from 'pg'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { CronClock } from '../src/crons/clock.ts'
import { adminGet } from './support/health-helpers.ts'
import { createProject, issuesOf, sendItems, type TestProject, testApp } from './support/helpers.ts'

const MINUTE = 60_000

/** Apps sharing one SQLite file, like servers sharing one database (or one after a restart). */
let dir: string
const open: FastifyInstance[] = []

async function node(): Promise<FastifyInstance> {
  const app = await testApp({ databasePath: join(dir, 'ingest.sqlite'), cronClockIntervalMs: 0 })
  await app.ready()
  open.push(app)
  return app
}

async function close(app: FastifyInstance): Promise<void> {
  open.splice(open.indexOf(app), 1)
  await app.close()
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cron-clock-'))
})
afterEach(async () => {
  for (const app of open.splice(0)) await app.close()
  await rm(dir, { recursive: true, force: true })
})

/** Sets up a monitor (every 5 min, margin 2) and returns its first deadline. */
async function monitorOn(
  app: FastifyInstance,
): Promise<{ project: TestProject; deadline: number }> {
  const project = await createProject(app, 'clock')
  const res = await sendItems(app, project, [
    [
      'check_in',
      {
        check_in_id: crypto.randomUUID(),
        monitor_slug: 'job',
        status: 'ok',
        monitor_config: { schedule: { type: 'crontab', value: '*/5 * * * *' }, checkin_margin: 2 },
      },
    ],
  ])
  expect(res.statusCode).toBe(200)
  const m = await adminGet<{ environments: { next_checkin_latest: string }[] }[]>(
    app,
    `/api/0/projects/${project.id}/monitors/`,
  )
  return { project, deadline: Date.parse(m.body[0]?.environments[0]?.next_checkin_latest ?? '') }
}

describe('the cron clock across restarts', () => {
  it('reports a run missed while the server was down when it comes back', async () => {
    const first = await node()
    const { project, deadline } = await monitorOn(first)
    await close(first)
    // Down past the deadline; the restarted server's first tick finds the missed run.
    const second = await node()
    const tick = await second.cronClock.tick(deadline + MINUTE)
    expect(tick).toMatchObject({ held: true, recorded: 1 })
    expect(await issuesOf(second, project.id)).toMatchObject([{ count: 1 }])
    expect((await second.cronClock.tick(deadline + MINUTE)).recorded).toBe(0)
  })

  it('writes the event of a failure recorded just before a crash, exactly once', async () => {
    const first = await node()
    const { project, deadline } = await monitorOn(first)
    // The clock recorded the missed run, then the process died before the event was written.
    expect(await first.services.store.recordMonitorFailures(deadline, 100)).toBe(1)
    await close(first)
    // The restarted server's first tick (at start) writes the pending event, whatever its time.
    const second = await node()
    const tick = await second.cronClock.tick(deadline + 1000)
    expect(tick).toMatchObject({ recorded: 0, events: [] })
    const issues = await issuesOf(second, project.id)
    expect(issues).toMatchObject([{ count: 1 }])
    expect(issues[0]?.title).toMatch(/^MonitorCheckInMissed: /)
    expect((await second.cronClock.tick(deadline + 2000)).events).toEqual([])
  })

  it('keeps a second report of the same failure from becoming a second event', async () => {
    const app = await node()
    const { project, deadline } = await monitorOn(app)
    const announced: string[] = []
    app.services.bus.on('event.stored', (e) => announced.push(e.eventId))
    const first = await app.cronClock.tick(deadline)
    expect(first.events).toHaveLength(1)
    // As if the node died after writing the event but before marking the failure reported.
    const sql = 'UPDATE monitor_checkins SET event_pending = 1 WHERE event_id IS NOT NULL'
    const backend = app.services.store as unknown as { db?: Database.Database; pool?: pg.Pool }
    if (backend.pool !== undefined) await backend.pool.query(sql)
    else backend.db?.prepare(sql).run()
    const again = await app.cronClock.tick(deadline)
    expect(again.events).toEqual(first.events)
    expect(await issuesOf(app, project.id)).toMatchObject([{ count: 1 }])
    expect(announced).toEqual(first.events)
  })
})

describe('the cron clock on several nodes sharing one database', () => {
  it('runs on exactly one node: the lease holder', async () => {
    const a = await node()
    const b = await node()
    const { project, deadline } = await monitorOn(a)
    const [ta, tb] = await Promise.all([a.cronClock.tick(deadline), b.cronClock.tick(deadline)])
    expect([ta.held, tb.held].sort()).toEqual([false, true])
    expect(ta.recorded + tb.recorded).toBe(1)
    expect(await issuesOf(a, project.id)).toMatchObject([{ count: 1 }])
    // The holder stops (releases the lease): the other node takes over at once.
    const [holder, other] = ta.held ? [a, b] : [b, a]
    await close(holder)
    const next = await other.cronClock.tick(deadline + 5 * MINUTE)
    expect(next).toMatchObject({ held: true, recorded: 1 })
    expect(await issuesOf(other, project.id)).toMatchObject([{ count: 2 }])
  })

  it('makes one event of a missed run even when two clocks process it at once', async () => {
    const a = await node()
    const b = await node()
    const { project, deadline } = await monitorOn(a)
    // A lease of 0 ms has always lapsed: both clocks hold it, as when a holder stalled past its
    // lease and another took over while it went on. Only the rows' keys keep the run single.
    // (One wall for both, past the lease the apps' own clocks took when they became ready.)
    const wall = Date.now() + 10 * MINUTE
    const racing = (app: FastifyInstance, holder: string) =>
      new CronClock({
        ...app.services,
        intervalMs: 0,
        leaseMs: 0,
        holder,
        wallClock: () => wall,
      })
    const one = racing(a, 'one')
    const two = racing(b, 'two')
    for (const [n, now] of [deadline, deadline + 5 * MINUTE].entries()) {
      const [t1, t2] = await Promise.all([one.tick(now), two.tick(now)])
      expect([t1.held, t2.held]).toEqual([true, true])
      expect(t1.recorded + t2.recorded).toBe(1)
      expect(await issuesOf(a, project.id)).toMatchObject([{ count: n + 1 }])
    }
  })

  it('lets another node take over when the holder stops renewing its lease', async () => {
    const app = await node()
    const { store, committer, bus } = app.services
    let wall = Date.now()
    const clock = (holder: string) =>
      new CronClock({
        store,
        committer,
        bus,
        intervalMs: 0,
        leaseMs: 30_000,
        holder,
        wallClock: () => wall,
      })
    const one = clock('one')
    const two = clock('two')
    // The app's own clock took the lease when the app became ready; let it lapse.
    wall += 5 * MINUTE
    expect((await one.tick()).held).toBe(true)
    expect((await two.tick()).held).toBe(false)
    wall += 20_000
    expect((await one.tick()).held).toBe(true)
    wall += 29_000
    expect((await two.tick()).held).toBe(false)
    wall += 31_000
    expect((await two.tick()).held).toBe(true)
    expect((await one.tick()).held).toBe(false)
    expect((await store.getLease(CronClock.LEASE))?.holder).toBe('two')
  })
})
