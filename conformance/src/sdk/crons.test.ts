/**
 * Cron check-ins with stock SDKs (Node `withMonitor` / `captureCheckIn`, Python `@monitor` /
 * `capture_checkin`): monitors appear with the schedule the job declared, and late, overrunning
 * and failing jobs become issues in the project's issue list. The test drives the server's clock
 * through its test-only route (`INGEST_TEST_CLOCK=1`) instead of waiting for minutes, so it runs
 * its own server.
 */
import { afterAll, beforeAll, describe, type ExpectStatic, it } from 'vitest'
import { Api, type Project } from '../harness/api.ts'
import { type Driver, loadDriver } from '../harness/drivers.ts'
import { HealthApi, type Monitor, runProgram } from '../harness/health-crons.ts'
import { type RunningServer, startServer } from '../harness/server.ts'
import { waitFor } from '../harness/wait.ts'

const MINUTE = 60_000

let server: RunningServer
let api: Api
let crons: HealthApi
beforeAll(async () => {
  server = await startServer({ env: { INGEST_TEST_CLOCK: '1' } })
  api = new Api(server.url, server.adminToken)
  crons = new HealthApi(server.url, server.adminToken)
})
afterAll(async () => {
  await server?.stop()
})

interface Target {
  label: string
  driver: Driver
  program: string
}

const targets: Target[] = [
  { label: 'node', driver: loadDriver('node'), program: 'conformance/drivers/node/crons.mjs' },
  { label: 'python', driver: loadDriver('python'), program: 'conformance/drivers/python/crons.py' },
]

async function runJob(t: Target, project: Project, scenario: string, slug: string) {
  return runProgram({
    driver: t.driver,
    program: t.program,
    args: [scenario, '--slug', slug],
    dsn: project.dsn,
  })
}

/** Waits for the monitor with at least `runs` runs whose newest has `status`. */
async function monitorOnce(projectId: number, slug: string, status: string): Promise<Monitor> {
  return waitFor(
    async () => {
      const [run] = await crons.runs(projectId, slug)
      if (run?.status !== status) return undefined
      return (await crons.monitors(projectId)).find((m) => m.slug === slug)
    },
    { timeout: 10_000, message: `monitor ${slug} with a ${status} run` },
  )
}

/** Waits for an issue whose title starts with `type` and names the monitor. */
async function issueOf(expect: ExpectStatic, projectId: number, type: string, slug: string) {
  const issue = await waitFor(
    async () =>
      (await api.issues(projectId)).find(
        (i) => i.title.startsWith(`${type}: `) && i.title.includes(`"${slug}"`),
      ),
    { message: `${type} issue of ${slug}` },
  )
  expect(issue.level).toBe('error')
  return issue
}

const deadline = (m: Monitor): number => Date.parse(m.environments[0]?.next_checkin_latest ?? '')

// Sequential on purpose: a clock tick processes every monitor of the server.
describe.each(targets)('cron check-ins: $label', (t) => {
  if (t.driver.missing !== undefined) {
    it.skip(`${t.label} driver unavailable: ${t.driver.missing}`, () => {})
    return
  }

  it('crontab monitor: created with its schedule; a job that reports late is missed', async ({
    expect,
  }) => {
    const project = await api.createProject(`crons-${t.label}-crontab`)
    const slug = `${t.label}-crontab`
    await runJob(t, project, 'crontab', slug)
    const m = await monitorOnce(project.id, slug, 'ok')
    expect(m).toMatchObject({
      status: 'ok',
      schedule: { type: 'crontab', value: '*/5 * * * *' },
      timezone: 'Europe/Berlin',
      checkin_margin: 1,
      max_runtime: 5,
    })
    expect(Date.parse(m.next_checkin ?? '') % (5 * MINUTE)).toBe(0)
    const [ok] = await crons.runs(project.id, slug)
    expect(ok?.duration).toBeGreaterThanOrEqual(0)
    // The next run does not come within the margin: missed, an issue of the project.
    await crons.tick(deadline(m))
    await issueOf(expect, project.id, 'MonitorCheckInMissed', slug)
    expect((await crons.runs(project.id, slug)).map((r) => r.status)).toEqual(['missed', 'ok'])
    // The job then runs late: a new run of its own, the monitor is ok again.
    await runJob(t, project, 'crontab', slug)
    await waitFor(
      async () =>
        (await crons.runs(project.id, slug)).filter((r) => r.status === 'ok').length === 2,
      { message: 'the late run is recorded' },
    )
    expect((await crons.monitors(project.id))[0]?.status).toBe('ok')
  })

  it('interval monitor: created with its schedule and missed after interval + margin', async ({
    expect,
  }) => {
    const project = await api.createProject(`crons-${t.label}-interval`)
    const slug = `${t.label}-interval`
    await runJob(t, project, 'interval', slug)
    const m = await monitorOnce(project.id, slug, 'ok')
    expect(m).toMatchObject({
      schedule: { type: 'interval', value: 10, unit: 'minute' },
      checkin_margin: 2,
      timezone: 'UTC',
    })
    expect((await crons.runs(project.id, slug))[0]).toMatchObject({
      status: 'ok',
      duration: 1500,
      environment: 'test',
    })
    await crons.tick(deadline(m) - 1000)
    expect(await api.issues(project.id)).toEqual([])
    await crons.tick(deadline(m))
    await issueOf(expect, project.id, 'MonitorCheckInMissed', slug)
  })

  it('a hung job that runs past max_runtime is overrunning', async ({ expect }) => {
    const project = await api.createProject(`crons-${t.label}-hang`)
    const slug = `${t.label}-hang`
    const started = Date.now()
    const report = await runJob(t, project, 'hang', slug)
    const [id] = report['check_in_ids'] as string[]
    await monitorOnce(project.id, slug, 'in_progress')
    await crons.tick(started + 2 * MINUTE)
    const issue = await issueOf(expect, project.id, 'MonitorCheckInTimeout', slug)
    expect(issue.title).toContain('max runtime of 1 min')
    // (The tick may also find the next scheduled run missed: only the hung run is checked.)
    const hung = (await crons.runs(project.id, slug)).find((r) => r.id === id?.replaceAll('-', ''))
    expect(hung?.status).toBe('timeout')
  })

  it('a failing job becomes an error issue at once', async ({ expect }) => {
    const project = await api.createProject(`crons-${t.label}-fail`)
    const slug = `${t.label}-fail`
    await runJob(t, project, 'fail', slug)
    const issue = await issueOf(expect, project.id, 'MonitorCheckInFailure', slug)
    const [run] = await crons.runs(project.id, slug)
    expect(run).toMatchObject({ status: 'error' })
    const events = await api.issueEvents(issue.id)
    expect(events.map((e) => e.event_id)).toEqual([run?.event_id])
    expect((await crons.monitors(project.id))[0]?.status).toBe('error')
  })
})
