/**
 * Events land and group: every driver's `grouping` scenario captures the same exception twice
 * from one code path and two messages differing only in a number. The two scenarios share one
 * driver run per row and check one half each; `compressed` sends a body large enough that SDKs
 * which compress only big bodies (the Node transport: above 32 KiB) compress it. The drivers'
 * `exception-groups` scenario sends the SDK's exception groups (Python's `ExceptionGroup`,
 * JavaScript's `AggregateError`, Go's `errors.Join`): two of copies of one error, then the same
 * two different errors in another order and count.
 */
import type { Issue } from '../../harness/api.ts'
import type { DriverOutput } from '../../harness/drivers.ts'
import { waitFor } from '../../harness/wait.ts'
import type { CellContext, CellProject } from '../context.ts'
import type { Scenario } from './scenario.ts'

/** What the first line of the exception issue's title starts with, per driver. */
const EXCEPTION_TITLES: Record<string, RegExp> = {
  python: /^ZeroDivisionError: division by zero/,
  // The stock crate names the type from the error's Debug output; ours with its module path.
  go: /ConformanceError: conformance boom/,
  java: /ConformanceException: conformance boom/,
  'rust-stock': /^ConformanceError: conformance boom/,
  'rust-sdk': /^conformance::ConformanceError: conformance boom/,
  default: /^Error: conformance boom/,
}

interface Grouped {
  project: CellProject
  report: DriverOutput
  issues: Issue[]
  /** event id → issue id. */
  issueOf: Map<string, string>
}

/**
 * One run of the driver's `run` scenario per row, shared by the cells that check it; waits for
 * two issues of two events.
 */
async function grouped(ctx: CellContext, run: string): Promise<Grouped> {
  // The project first, so a failing run still has its requests in both cells' evidence.
  const project = await ctx.state.shared(`${ctx.row.id}:${run} project`, () =>
    ctx.createProject(run),
  )
  ctx.track(project)
  return ctx.state.shared(`${ctx.row.id}:${run}`, async () => {
    const report = await ctx.runEvents(run, project.dsn)
    const issues = await waitFor(
      async () => {
        const list = await ctx.api.issues(project.id)
        return list.length === 2 && list.every((i) => i.count === 2) ? list : undefined
      },
      { timeout: ctx.readBackMs, message: 'two issues with two events each' },
    ).catch(async (error: unknown) => {
      ctx.note('issues', await ctx.api.issues(project.id))
      throw error
    })
    const issueOf = new Map<string, string>()
    for (const id of report.event_ids) {
      const event = await ctx.api.event(project.id, id)
      if (event !== undefined) issueOf.set(id, String(event.issue_id))
    }
    return { project, report, issues, issueOf }
  })
}

/** Checks that the events of one label of `run` are stored, in one issue of their own. */
async function checkGroup(ctx: CellContext, label: string, run = 'grouping'): Promise<Issue> {
  const { expect } = ctx
  const g = await grouped(ctx, run)
  ctx.track(g.project)
  ctx.evidence.sdk = g.report.sdk
  ctx.note('issues', g.issues)
  const ids = g.report.groups[label] ?? []
  expect(ids, `${label} event ids the SDK reported`).toHaveLength(2)
  for (const id of ids) expect(g.issueOf.get(id), `event ${id} is stored`).toBeDefined()
  const issues = new Set(ids.map((id) => g.issueOf.get(id)))
  expect(issues.size, `both ${label} events in one issue`).toBe(1)
  const [issueId] = issues
  const others = g.report.event_ids.filter((id) => !ids.includes(id))
  for (const id of others) expect(g.issueOf.get(id), 'a separate issue').not.toBe(issueId)
  const issue = g.issues.find((i) => String(i.id) === issueId)
  expect(issue, `issue ${issueId}`).toBeDefined()
  const listed = await ctx.api.issueEvents(issueId ?? '')
  ctx.note(`events of issue ${issueId}`, listed)
  expect(listed.map((e) => e.event_id).sort()).toEqual([...ids].sort())
  return issue as Issue
}

/** Lands and groups. */
export const landsAndGroups: Scenario = {
  id: 'lands-and-groups',
  async run(ctx) {
    const issue = await checkGroup(ctx, 'exception')
    // By driver, else by runtime (python-prev runs the python driver's programs).
    const title =
      EXCEPTION_TITLES[ctx.driver.name] ??
      EXCEPTION_TITLES[ctx.driver.runtime] ??
      (EXCEPTION_TITLES['default'] as RegExp)
    ctx.expect(issue.title).toMatch(title)
    ctx.expect(issue.level).toBe('error')
  },
}

/** Messages differing only in numbers group. */
export const messagesGroup: Scenario = {
  id: 'messages-group',
  async run(ctx) {
    const issue = await checkGroup(ctx, 'message')
    ctx.expect(issue.title).toMatch(/conformance order \S+ failed/)
    ctx.expect(issue.level).toBe('info')
  },
}

/** Per driver runtime: the type of the lone member, then the group's type, as titled. */
const GROUP_TITLES: Record<string, { member: RegExp; group: RegExp }> = {
  python: { member: /^ValueError: bad item \d/, group: /^ExceptionGroup: batch failed/ },
  go: { member: /^\*main\.ItemError: bad item \d/, group: /^\*errors\.joinError: / },
  node: { member: /^RangeError: bad item \d/, group: /^AggregateError: batch failed/ },
  chromium: { member: /^RangeError: bad item \d/, group: /^AggregateError: batch failed/ },
}

/**
 * Exception groups group by their distinct members: groups of one error's copies (two, then
 * one) make one issue named after that error; groups of the same two different errors in
 * another order and count make one issue named after the group.
 */
export const exceptionGroups: Scenario = {
  id: 'exception-groups',
  async run(ctx) {
    const titles = GROUP_TITLES[ctx.driver.runtime]
    ctx.expect(titles, `titles known for runtime ${ctx.driver.runtime}`).toBeDefined()
    const same = await checkGroup(ctx, 'same', 'exception-groups')
    ctx.expect(same.title).toMatch(titles?.member ?? /^$/)
    const mixed = await checkGroup(ctx, 'mixed', 'exception-groups')
    ctx.expect(mixed.title).toMatch(titles?.group ?? /^$/)
  },
}

/** Compressed bodies. */
export const compressed: Scenario = {
  id: 'compressed',
  async run(ctx) {
    const { expect } = ctx
    const project = await ctx.createProject('compressed')
    ctx.track(project)
    const report = await ctx.runEvents('large', project.dsn)
    const [id] = report.event_ids
    expect(id, 'the driver reported its event id').toBeDefined()
    const event = await waitFor(() => ctx.api.event(project.id, id ?? ''), {
      timeout: ctx.readBackMs,
      message: `event ${id} is stored`,
    })
    ctx.note('stored event (message)', event['message'] ?? event['logentry'])
    const sent = ctx.target.proxy.requests.filter(
      (r) => r.path.startsWith(`/api/${project.id}/`) && r.itemTypes.includes('event'),
    )
    expect(
      sent.map((r) => r.encoding),
      'the event request was compressed',
    ).toEqual([expect.stringMatching(/^(gzip|deflate|br)$/)])
    expect(sent.map((r) => r.status)).toEqual([200])
  },
}
