/**
 * Quotas and what SDKs do about them, seen from outside the SDK through the recording proxy:
 * 429 back-off and the client report of what it held back (one shared `ratelimit` run per row),
 * a partially accepted envelope resent after the window, and unsupported items being counted.
 * The quota numbers must match the drivers' (`WINDOW_SECONDS` in quota.mjs / quota.py).
 */
import type { DriverOutput } from '../../harness/drivers.ts'
import { outcomeKeys, outcomeTotals, setQuota } from '../../harness/outcomes.ts'
import type { RecordedRequest } from '../../harness/recording-proxy.ts'
import { waitFor } from '../../harness/wait.ts'
import type { CellContext, CellProject } from '../context.ts'
import type { Scenario } from './scenario.ts'

const WINDOW_SECONDS = 4
const LIMIT = /^(\d+):error:project:quota_exceeded$/

interface QuotaRun {
  project: CellProject
  report: DriverOutput
}

/** Sets the quota, runs the driver's quota program scenario through the proxy. */
async function quotaRun(
  ctx: CellContext,
  scenario: string,
  quota: number | null,
  project?: CellProject,
): Promise<QuotaRun> {
  project ??= await ctx.createProject(scenario)
  ctx.track(project)
  if (quota !== null) {
    await setQuota(ctx.target.url, ctx.target.token, project.id, {
      events: quota,
      window_seconds: WINDOW_SECONDS,
    })
  }
  const report = await ctx.runEvents(scenario, project.dsn, 'quota')
  return { project, report }
}

const requestsOf = (ctx: CellContext, projectId: number): RecordedRequest[] =>
  ctx.target.proxy.requests.filter((r) => r.path.startsWith(`/api/${projectId}/`))

async function outcomes(ctx: CellContext, projectId: number): Promise<Record<string, number>> {
  return outcomeKeys(await outcomeTotals(ctx.target.url, ctx.target.token, projectId))
}

async function expectStored(ctx: CellContext, projectId: number, ids: string[], stored: boolean) {
  for (const id of ids) {
    const event = await ctx.api.event(projectId, id)
    ctx
      .expect(event === undefined ? 'absent' : 'stored', `event ${id}`)
      .toBe(stored ? 'stored' : 'absent')
  }
}

/** The row's `ratelimit` run (quota 3), shared by back-off and client reports. */
async function ratelimit(ctx: CellContext): Promise<QuotaRun> {
  const project = await ctx.state.shared(`${ctx.row.id}:ratelimit project`, () =>
    ctx.createProject('ratelimit'),
  )
  ctx.track(project)
  return ctx.state.shared(`${ctx.row.id}:ratelimit`, () => quotaRun(ctx, 'ratelimit', 3, project))
}

/** 429 back-off. */
export const backOff: Scenario = {
  id: 'back-off',
  async run(ctx) {
    const { expect } = ctx
    const { project, report } = await ratelimit(ctx)
    ctx.track(project)
    ctx.evidence.sdk = report.sdk
    const g = (label: string) => report.groups[label] ?? []
    expect(g('accepted')).toHaveLength(3)
    const eventRequests = requestsOf(ctx, project.id).filter((r) => r.itemTypes.includes('event'))
    expect(eventRequests.map((r) => r.status)).toEqual([200, 200, 200, 429, 200])
    const limited = eventRequests[3] as RecordedRequest
    const after = eventRequests[4] as RecordedRequest
    expect(limited.retryAfter).toMatch(/^\d+$/)
    const seconds = Number(limited.retryAfter)
    expect(seconds).toBeGreaterThanOrEqual(1)
    expect(seconds).toBeLessThanOrEqual(WINDOW_SECONDS)
    expect(limited.rateLimits).toBe(`${seconds}:error:project:quota_exceeded`)
    // No event request reached the server during the announced time.
    expect(after.at).toBeGreaterThanOrEqual(limited.answeredAt + seconds * 1000)
    await expectStored(ctx, project.id, [...g('accepted'), ...g('after_window')], true)
    await expectStored(ctx, project.id, [...g('refused'), ...g('held_back')], false)
  },
}

/** Client reports reach outcomes. */
export const clientReports: Scenario = {
  id: 'client-reports',
  async run(ctx) {
    const { expect } = ctx
    const { project, report } = await ratelimit(ctx)
    ctx.track(project)
    ctx.evidence.sdk = report.sdk
    const counted = await waitFor(
      async () => {
        const o = await outcomes(ctx, project.id)
        return (o['client_discard:ratelimit_backoff/error'] ?? 0) >= 3 ? o : undefined
      },
      { timeout: ctx.readBackMs, message: 'ratelimit_backoff client report counted' },
    ).catch(async (error: unknown) => {
      ctx.note('outcomes', await outcomes(ctx, project.id))
      throw error
    })
    ctx.note('outcomes', counted)
    expect(counted['accepted/error']).toBe(4)
    expect(counted['over_quota/error']).toBe(1)
    expect(counted['client_discard:ratelimit_backoff/error']).toBe(3)
    // The client report got through (it costs no quota). SDKs that send it during the limit
    // (JS, Python) get a 200 announcing the limit; sentry-rust sends it with the next envelope.
    const events = requestsOf(ctx, project.id).filter((r) => r.itemTypes.includes('event'))
    const [limited, after] = [events[3], events[4]]
    const reportRequest = requestsOf(ctx, project.id).find(
      (r) => r.itemTypes.includes('client_report') && r.at > (limited?.at ?? 0),
    )
    expect(reportRequest?.status, 'the client report was accepted').toBe(200)
    if (reportRequest !== undefined && after !== undefined && reportRequest.at < after.at) {
      expect(reportRequest.rateLimits, 'a 200 during the limit announces it').toMatch(LIMIT)
    }
  },
}

/** Partial envelope resent and deduplicated. */
export const partialResend: Scenario = {
  id: 'partial-resend',
  async run(ctx) {
    const { expect } = ctx
    const { project, report } = await quotaRun(ctx, 'partial', 30)
    ctx.track(project)
    const sent = report.groups['sent'] ?? []
    expect(sent).toHaveLength(50)
    const events = requestsOf(ctx, project.id).filter((r) => r.itemTypes.includes('event'))
    expect(events.map((r) => r.status)).toEqual([429, 200])
    expect(events[0]?.itemTypes.filter((t) => t === 'event')).toHaveLength(50)
    expect(events[0]?.rateLimits).toMatch(LIMIT)
    await expectStored(ctx, project.id, sent, true)
    const issues = ctx.note('issues', await ctx.api.issues(project.id))
    expect(
      issues.reduce((n, i) => n + i.count, 0),
      'no event stored twice',
    ).toBe(50)
    const o = ctx.note('outcomes', await outcomes(ctx, project.id))
    const errors = Object.fromEntries(Object.entries(o).filter(([k]) => k.endsWith('/error')))
    expect(errors).toEqual({ 'accepted/error': 50, 'duplicate/error': 30, 'over_quota/error': 20 })
  },
}

/** The outcome category the server counts an item type under (server: `categoryOf`). */
const CATEGORIES: Record<string, string> = {
  log: 'log_item',
  replay_event: 'replay',
  replay_recording: 'replay',
  replay_video: 'replay',
  profile_chunk: 'profile',
  user_report: 'feedback',
}

/** Item types the server stores or acts on; any other type an SDK sends is counted. */
const HANDLED = new Set(['event', 'client_report', 'session', 'sessions', 'check_in'])

/**
 * The types the row's `unsupported` run must send (driver.json `unsupportedItems`; `a|b` when
 * SDK versions send one or the other, e.g. `profile|profile_chunk`).
 */
const DEFAULT_UNSUPPORTED = ['transaction', 'log', 'attachment']

/** Unsupported items counted. */
export const unsupportedItems: Scenario = {
  id: 'unsupported-items',
  async run(ctx) {
    const { expect } = ctx
    const { project, report } = await quotaRun(ctx, 'unsupported', null)
    ctx.track(project)
    await expectStored(ctx, project.id, report.groups['event'] ?? [], true)
    const required = (ctx.driver.unsupportedItems ?? DEFAULT_UNSUPPORTED).map((t) => t.split('|'))
    const key = (type: string) => `unsupported:${type}/${CATEGORIES[type] ?? type}`
    const o = await waitFor(
      async () => {
        const all = await outcomes(ctx, project.id)
        const counted = required.every((alt) => alt.some((type) => all[key(type)] !== undefined))
        return counted ? all : undefined
      },
      { timeout: ctx.readBackMs, message: `${required.join(', ')} are counted` },
    ).catch(async (error: unknown) => {
      ctx.note('outcomes', await outcomes(ctx, project.id))
      throw error
    })
    ctx.note('outcomes', o)
    expect(o['accepted/error']).toBe(1)
    const requests = requestsOf(ctx, project.id)
    expect(
      requests.map((r) => r.status).filter((s) => s !== 200),
      'every request answered 200',
    ).toEqual([])
    const types = requests.flatMap((r) => r.itemTypes)
    for (const alt of required) {
      expect(
        alt.some((type) => types.includes(type)),
        `the SDK sent ${alt.join(' or ')}`,
      ).toBe(true)
    }
    // Every type the SDK sent that the server does not store is counted, once per item.
    for (const type of new Set(types.filter((t) => !HANDLED.has(t)))) {
      expect(o[key(type)], type).toBe(types.filter((t) => t === type).length)
    }
    ctx.say(
      `sent and counted as unsupported: ${[...new Set(types.filter((t) => !HANDLED.has(t)))].join(', ')}`,
    )
  },
}
