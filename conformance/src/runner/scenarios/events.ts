/**
 * Events land and group: every driver's `grouping` scenario captures the same exception twice
 * from one code path and two messages differing only in a number. The two scenarios share one
 * driver run per row and check one half each; `compressed` sends a body large enough that SDKs
 * which compress only big bodies (the Node transport: above 32 KiB) compress it.
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

/** One `grouping` run per row, shared by both scenarios; waits for two issues of two events. */
async function grouped(ctx: CellContext): Promise<Grouped> {
  // The project first, so a failing run still has its requests in both cells' evidence.
  const project = await ctx.state.shared(`${ctx.row.id}:grouping project`, () =>
    ctx.createProject('grouping'),
  )
  ctx.track(project)
  return ctx.state.shared(`${ctx.row.id}:grouping`, async () => {
    const report = await ctx.runEvents('grouping', project.dsn)
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

/** Checks that the events of one label are stored, in one issue of their own. */
async function checkGroup(ctx: CellContext, label: string): Promise<Issue> {
  const { expect } = ctx
  const g = await grouped(ctx)
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
