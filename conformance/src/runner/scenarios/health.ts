/**
 * Sessions reach release health: each driver runs two processes (or manual sessions) of one
 * release, one of them ending badly, and the release's health must show exactly that.
 */
import type { Health } from '../../harness/health-crons.ts'
import { waitFor } from '../../harness/wait.ts'
import { sessionTotals } from './requests.ts'
import type { Scenario } from './scenario.ts'

interface SessionPlan {
  /** Program runs: scenario argument, user, accepted exit codes. */
  runs: { scenario: string; user: string; exitCodes?: number[] }[]
  /** The health expected, or `sent`: exactly what the SDK's session items add up to. */
  expected: Partial<Health> | 'sent'
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
  // Rust: two processes, one panicking in the main thread (exit code 101, what any panicking
  // Rust program exits with): the panic hook reports it and the session ends `crashed`. The
  // stock crate takes the session's `did` from the scope's user when the session starts.
  'rust-stock': {
    runs: [
      { scenario: 'ok', user: 'alice' },
      { scenario: 'crash', user: 'carol', exitCodes: [101] },
    ],
    expected: { sessions: 2, sessions_crashed: 1, sessions_healthy: 1, users: 2, users_crashed: 1 },
  },
  // The first-party SDK tracks one session per `init` by default; its sessions carry no user.
  'rust-sdk': {
    runs: [
      { scenario: 'ok', user: 'alice' },
      { scenario: 'crash', user: 'carol', exitCodes: [101] },
    ],
    expected: { sessions: 2, sessions_crashed: 1, sessions_healthy: 1 },
  },
  // The browser: two page loads, one with an uncaught error. The page session of that one ends
  // `crashed` (v10) or `unhandled` (v11): counted as the SDK sent it.
  browser: {
    runs: [
      { scenario: 'ok', user: 'alice' },
      { scenario: 'crash', user: 'carol' },
    ],
    expected: 'sent',
  },
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
    if (plan.expected !== 'sent') {
      ctx.expect(health).toMatchObject(plan.expected)
      return
    }
    const items = ctx.target.proxy.requests
      .filter((r) => r.path.startsWith(`/api/${project.id}/`))
      .flatMap((r) => r.sessionItems)
    ctx.note('session items the SDK sent', items)
    const sent = sessionTotals(items)
    ctx.expect(sent.healthy, 'the clean page load').toBe(1)
    ctx.expect(sent.crashed + sent.unhandled, 'the page load with the uncaught error').toBe(1)
    ctx.expect(health).toMatchObject({
      sessions: 2,
      sessions_healthy: sent.healthy,
      sessions_errored: sent.errored,
      sessions_crashed: sent.crashed,
      sessions_unhandled: sent.unhandled,
      users: sent.users,
    })
    ctx.say(
      `the page sessions as sent: ${sent.healthy} healthy, ${sent.crashed} crashed, ${sent.unhandled} unhandled`,
    )
  },
}
