/**
 * Cron check-ins: the driver's `interval` job (every 10 minutes, margin 2, 1.5 s run) creates a
 * monitor with an ok run; with the server's test clock moved past the deadline the run is
 * missed and becomes an issue. A tick processes every monitor of the server, so cron cells run
 * one at a time (a shared lock).
 */
import { waitFor } from '../../harness/wait.ts'
import type { CellContext, CellProject } from '../context.ts'
import type { Scenario } from './scenario.ts'

const LOCK = 'cron clock'

/** Runs the interval job and waits for its monitor with an ok run. */
async function intervalMonitor(ctx: CellContext, project: CellProject, slug: string) {
  await ctx.runProgram('crons', ['interval', '--slug', slug], project.dsn)
  return waitFor(
    async () => {
      const [run] = await ctx.health.runs(project.id, slug).catch(() => [])
      if (run?.status !== 'ok') return undefined
      return (await ctx.health.monitors(project.id)).find((m) => m.slug === slug)
    },
    { timeout: ctx.readBackMs, message: `monitor ${slug} with an ok run` },
  )
}

/** A check-in creates a monitor and a run. */
export const checkIn: Scenario = {
  id: 'check-in',
  run(ctx) {
    return ctx.state.exclusive(LOCK, async () => {
      const project = await ctx.createProject('check-in')
      ctx.track(project)
      const slug = `${ctx.row.id}-interval`
      const monitor = ctx.note('monitor', await intervalMonitor(ctx, project, slug))
      ctx.expect(monitor).toMatchObject({
        schedule: { type: 'interval', value: 10, unit: 'minute' },
        checkin_margin: 2,
        timezone: 'UTC',
      })
      const runs = ctx.note('runs', await ctx.health.runs(project.id, slug))
      ctx.expect(runs[0]).toMatchObject({ status: 'ok', duration: 1500, environment: 'test' })
    })
  },
}

/** A missed run becomes an event (needs the test clock). */
export const missedRun: Scenario = {
  id: 'missed-run',
  run(ctx) {
    return ctx.state.exclusive(LOCK, async () => {
      const project = await ctx.createProject('missed-run')
      ctx.track(project)
      const slug = `${ctx.row.id}-missed`
      const monitor = ctx.note('monitor', await intervalMonitor(ctx, project, slug))
      const deadline = Date.parse(monitor.environments[0]?.next_checkin_latest ?? '')
      ctx.expect(Number.isFinite(deadline), 'the monitor has a deadline').toBe(true)
      ctx.note('tick before the deadline', await ctx.health.tick(deadline - 1000))
      ctx.expect(await ctx.api.issues(project.id), 'no issue before the deadline').toEqual([])
      ctx.note('tick at the deadline', await ctx.health.tick(deadline))
      const issue = await waitFor(
        async () =>
          (await ctx.api.issues(project.id)).find(
            (i) => i.title.startsWith('MonitorCheckInMissed: ') && i.title.includes(`"${slug}"`),
          ),
        { timeout: ctx.readBackMs, message: `MonitorCheckInMissed issue of ${slug}` },
      )
      ctx.note('issue', issue)
      ctx.expect(issue.level).toBe('error')
      const runs = ctx.note('runs', await ctx.health.runs(project.id, slug))
      ctx.expect(runs.map((r) => r.status)).toEqual(['missed', 'ok'])
    })
  },
}
