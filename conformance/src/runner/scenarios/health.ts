/**
 * Sessions reach release health: each driver runs two processes (or manual sessions) of one
 * release, one of them ending badly, and the release's health must show exactly that.
 */
import type { Health } from '../../harness/health-crons.ts'
import { waitFor } from '../../harness/wait.ts'
import type { Scenario } from './scenario.ts'

interface SessionPlan {
  /** Program runs: scenario argument, user, accepted exit codes. */
  runs: { scenario: string; user: string; exitCodes?: number[] }[]
  expected: Partial<Health>
}

/**
 * Node: two processes, one crashing by an uncaught error (exit code 1, as the SDK's handler
 * does). Python and Java: two manual sessions, one with a handled error.
 */
const MANUAL: SessionPlan = {
  runs: [
    { scenario: 'manual', user: 'erin' },
    { scenario: 'clean', user: 'frank' },
  ],
  expected: { sessions: 2, sessions_errored: 1, sessions_healthy: 1, users: 2 },
}

const PLANS: Record<string, SessionPlan> = {
  node: {
    runs: [
      { scenario: 'ok', user: 'alice' },
      { scenario: 'crash', user: 'carol', exitCodes: [1] },
    ],
    expected: { sessions: 2, sessions_crashed: 1, sessions_healthy: 1, users: 2, users_crashed: 1 },
  },
  python: MANUAL,
  // sentry-java's sessions on the JVM carry no `did` even with a user set (seen in the
  // evidence: the server counts 0 users), so users are not expected from it.
  java: { ...MANUAL, expected: { sessions: 2, sessions_errored: 1, sessions_healthy: 1 } },
}

/** Sessions reach release health. */
export const sessions: Scenario = {
  id: 'sessions',
  async run(ctx) {
    const plan = PLANS[ctx.driver.name] ?? PLANS[ctx.driver.runtime]
    if (plan === undefined) throw new Error(`no session plan for driver ${ctx.driver.name}`)
    const project = await ctx.createProject('sessions')
    ctx.track(project)
    const release = `${ctx.row.id}-sessions@1.0.0`
    await Promise.all(
      plan.runs.map((r) =>
        ctx.runProgram(
          'sessions',
          [r.scenario, '--release', release, '--user', r.user],
          project.dsn,
          r.exitCodes,
        ),
      ),
    )
    const health = await waitFor(
      async () => {
        const h = await ctx.health.releaseHealth(project.id, release)
        return h !== undefined && h.sessions >= plan.runs.length ? h : undefined
      },
      { timeout: ctx.readBackMs, message: `${plan.runs.length} sessions of ${release}` },
    ).catch(async (error: unknown) => {
      ctx.note('releases', await ctx.health.releases(project.id))
      throw error
    })
    ctx.note(`health of ${release}`, health)
    ctx.expect(health).toMatchObject(plan.expected)
  },
}
