/**
 * Real web apps with their SDK's stock framework integration (drivers with an `app` in their
 * driver.json, speaking `drivers/web-app.mjs`'s protocol): what an unhandled error in a route
 * handler carries once stored, how errors of one route group, the request-mode session
 * aggregates the integration sends, and the documented wrong initialisation order.
 */
import type { StoredEvent } from '../../harness/api.ts'
import type { Health } from '../../harness/health-crons.ts'
import type { SessionItem } from '../../harness/recording-proxy.ts'
import { waitFor } from '../../harness/wait.ts'
import type { CellContext, CellProject } from '../context.ts'
import type { Scenario } from './scenario.ts'

/** The release every app reports (`RELEASE` in drivers/web-app.mjs). */
const RELEASE = 'conformance-app@1.0.0'

type Json = Record<string, unknown>
const obj = (v: unknown): Json | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined

/** A header's value from the shapes events carry headers in (object or `[name, value]` pairs). */
export function headerOf(request: Json | undefined, name: string): string | undefined {
  const headers = request?.['headers']
  const pairs: unknown[][] = Array.isArray(headers)
    ? headers.filter((p): p is unknown[] => Array.isArray(p))
    : Object.entries(obj(headers) ?? {})
  const hit = pairs.find((p) => String(p[0]).toLowerCase() === name.toLowerCase())
  return hit === undefined ? undefined : String(hit[1])
}

/** The messages and categories of an event's breadcrumbs, as one searchable list. */
function breadcrumbTexts(event: StoredEvent): string[] {
  const crumbs = event['breadcrumbs']
  const list = Array.isArray(crumbs) ? crumbs : (obj(crumbs)?.['values'] ?? [])
  return (Array.isArray(list) ? list : []).map((b) => {
    const c = obj(b) ?? {}
    return `${String(c['category'] ?? '')}: ${String(c['message'] ?? '')}`
  })
}

/** What the row's app is expected to send (driver.json `app`, this row's SDK variant). */
interface AppExpectations {
  framework: string
  /** The transaction of an order's error event; undefined when the SDK names none. */
  transaction: (order: string) => string | undefined
  /** The issue's culprit: the route, or (no transaction) a pattern of the crash frame. */
  culprit: RegExp
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

function appOf(ctx: CellContext): AppExpectations {
  const app = ctx.driver.app
  if (app === undefined) throw new Error(`driver ${ctx.driver.name} describes no app`)
  const variant = ctx.row.sdk === undefined ? undefined : app.transactionBySdk?.[ctx.row.sdk]
  const named = variant ?? app.transaction
  if (named === null) {
    if (app.culprit === undefined) throw new Error(`driver ${ctx.driver.name}: no app.culprit`)
    return {
      framework: app.framework,
      transaction: () => undefined,
      culprit: new RegExp(app.culprit),
    }
  }
  const transaction = (order: string) => named.replaceAll('{order}', order)
  // The culprit is the newest event's transaction (order 42 is sent last).
  return {
    framework: app.framework,
    transaction,
    culprit: new RegExp(`^${escapeRegExp(transaction('42'))}$`),
  }
}

interface RouteErrors {
  project: CellProject
  /** The two stored events, the order's id → event. */
  events: Map<string, StoredEvent>
  issueIds: Set<string>
}

/** Runs the scenario's two failing requests and reads both events back. */
async function routeErrors(ctx: CellContext, scenario: string): Promise<RouteErrors> {
  const { expect } = ctx
  const project = await ctx.createProject(scenario)
  ctx.track(project)
  const report = await ctx.runEvents(scenario, project.dsn)
  const ids = report.groups['route'] ?? []
  expect(ids, 'the app sent one event per failing request').toHaveLength(2)
  const events = new Map<string, StoredEvent>()
  for (const [i, id] of ids.entries()) {
    const event = await waitFor(() => ctx.api.event(project.id, id), {
      timeout: ctx.readBackMs,
      message: `event ${id} is stored`,
    })
    events.set(i === 0 ? '17' : '42', event)
  }
  const issueIds = new Set([...events.values()].map((e) => String(e.issue_id)))
  return { project, events, issueIds }
}

/** An unhandled error in a route handler, with everything the framework integration adds. */
export const requestErrors: Scenario = {
  id: 'request-errors',
  async run(ctx) {
    const { expect } = ctx
    const app = appOf(ctx)
    const { project, events, issueIds } = await routeErrors(ctx, 'request-errors')
    expect(issueIds.size, 'both orders of the route in one issue').toBe(1)
    for (const [order, event] of events) {
      const request = obj(event['request'])
      ctx.note(`request of order ${order}`, request)
      ctx.note(`user, transaction and breadcrumbs of order ${order}`, {
        user: event['user'],
        transaction: event['transaction'],
        breadcrumbs: breadcrumbTexts(event),
      })
      expect(request?.['method'], 'request method').toBe('GET')
      expect(String(request?.['url']), 'request URL').toMatch(
        new RegExp(`^http://127\\.0\\.0\\.1:\\d+/orders/${order}(\\?expand=items)?$`),
      )
      const query = JSON.stringify(request?.['query_string'] ?? '')
      expect(query, 'query string').toMatch(/expand.{0,5}items/)
      expect(headerOf(request, 'x-request-id'), 'a request header').toBe(
        `conformance-customer-${order}`,
      )
      expect(headerOf(request, 'user-agent'), 'the User-Agent header').toBe(
        'conformance-client/1.0',
      )
      expect(event['transaction'], 'the route as transaction').toBe(app.transaction(order))
      expect(obj(event['user'])?.['id'], 'the user the app set').toBe(`customer-${order}`)
      expect(
        breadcrumbTexts(event).some((t) => t.includes(`loading order ${order}`)),
        'the log line before the error as a breadcrumb',
      ).toBe(true)
    }
    const issues = ctx.note('issues', await ctx.api.issues(project.id))
    expect(issues).toHaveLength(1)
    expect(issues[0]?.count).toBe(2)
    expect(issues[0]?.culprit, 'the issue names the route (or the crash frame)').toMatch(
      app.culprit,
    )
    if (app.transaction('42') === undefined) {
      ctx.say(
        `the SDK names no transaction on error events: the culprit is the crash frame (${issues[0]?.culprit})`,
      )
    }
  },
}

/**
 * The SDK initialised after the framework was imported (the seed: most auto-instrumentation is
 * then silently lost). Recorded as what it is: the error still lands and groups, and the route
 * is missing from the event — the cell fails if that ever changes, so the report stays true.
 */
export const lateInit: Scenario = {
  id: 'late-init',
  async run(ctx) {
    const { expect } = ctx
    const app = appOf(ctx)
    const { events, issueIds } = await routeErrors(ctx, 'late-init')
    const lacks = new Set<string>()
    expect(issueIds.size, 'both orders of the route in one issue').toBe(1)
    for (const [order, event] of events) {
      const request = obj(event['request'])
      const missing = [
        ...(event['transaction'] === app.transaction(order) ? [] : ['the route as transaction']),
        ...(request === undefined ? ['the request'] : []),
        ...(headerOf(request, 'x-request-id') === undefined ? ['the request headers'] : []),
      ]
      ctx.note(`order ${order}: initialised after ${app.framework}, the event lacks`, missing)
      ctx.note(`order ${order}: what it carries`, {
        transaction: event['transaction'],
        request,
        user: event['user'],
      })
      expect(missing, 'the route is lost without the early init').toContain(
        'the route as transaction',
      )
      lacks.add(missing.join(', '))
    }
    ctx.say(
      `initialised after ${app.framework}, the error lands and groups but lacks ${[...lacks].join('; ')}`,
    )
  },
}

/** Orders two updates of one session by how far the session had got (see sessionTotals). */
function compareProgress(a: Json, b: Json): number {
  const ended = (p: Json) => (p['status'] === undefined || p['status'] === 'ok' ? 0 : 1)
  const errors = (p: Json) => (typeof p['errors'] === 'number' ? p['errors'] : 0)
  const time = (p: Json) =>
    typeof p['timestamp'] === 'string' ? Date.parse(p['timestamp']) || 0 : 0
  return ended(a) - ended(b) || errors(a) - errors(b) || time(a) - time(b)
}

/** What the SDK's session items add up to: per health status, and the distinct users. */
export function sessionTotals(items: readonly SessionItem[]): {
  healthy: number
  errored: number
  crashed: number
  unhandled: number
  abnormal: number
  users: number
} {
  const t = { healthy: 0, errored: 0, crashed: 0, unhandled: 0, abnormal: 0, users: 0 }
  // Individual sessions: the latest update of each `sid` decides its status. Requests can
  // arrive out of order (a page's init update still in flight when its crash update lands),
  // so "latest" is the session's own progress, not the arrival order: an ended status, then
  // the error count, then the update's timestamp.
  const last = new Map<string, Json>()
  const users = new Set<string>()
  for (const item of items) {
    const p = obj(item.payload) ?? {}
    if (item.type === 'session') {
      const sid = p['sid']
      if (typeof sid === 'string') {
        const seen = last.get(sid)
        if (seen === undefined || compareProgress(p, seen) >= 0) last.set(sid, p)
      }
      if (typeof p['did'] === 'string') users.add(p['did'])
      continue
    }
    const list = p['aggregates']
    for (const bucket of Array.isArray(list) ? list : []) {
      const b = obj(bucket) ?? {}
      const n = (key: string) => (typeof b[key] === 'number' ? (b[key] as number) : 0)
      t.healthy += n('exited')
      t.errored += n('errored')
      t.crashed += n('crashed')
      t.abnormal += n('abnormal')
      if (typeof b['did'] === 'string') users.add(b['did'])
    }
  }
  for (const session of last.values()) {
    const status = session['status']
    const errors = typeof session['errors'] === 'number' ? session['errors'] : 0
    if (status === 'crashed') t.crashed++
    else if (status === 'unhandled') t.unhandled++
    else if (status === 'abnormal') t.abnormal++
    else if (errors > 0) t.errored++
    else t.healthy++
  }
  t.users = users.size
  return t
}

/**
 * Request-mode sessions: what the integration sent — the request aggregates, plus the process
 * session some SDK versions also keep — reaches release health as sent.
 */
export const requestSessions: Scenario = {
  id: 'request-sessions',
  async run(ctx) {
    const { expect } = ctx
    const project = await ctx.createProject('request-sessions')
    ctx.track(project)
    const report = await ctx.runEvents('request-sessions', project.dsn)
    expect(report.groups['crash'] ?? [], 'the failing request sent its event').toHaveLength(1)
    const items = ctx.target.proxy.requests
      .filter((r) => r.path.startsWith(`/api/${project.id}/`))
      .flatMap((r) => r.sessionItems)
    ctx.note('session items the SDK sent', items)
    const aggregated = sessionTotals(items.filter((i) => i.type === 'sessions'))
    const requests = aggregated.healthy + aggregated.errored + aggregated.crashed
    expect(requests + aggregated.abnormal, 'an aggregated session per request').toBe(4)
    expect(aggregated.errored + aggregated.crashed, 'the failing request').toBe(1)
    const sent = sessionTotals(items)
    const total = sent.healthy + sent.errored + sent.crashed + sent.unhandled + sent.abnormal
    const health = await waitFor(
      async () => {
        const h = await ctx.health.releaseHealth(project.id, RELEASE)
        return h !== undefined && h.sessions >= total ? h : undefined
      },
      { timeout: ctx.readBackMs, message: `${total} sessions of ${RELEASE}` },
    ).catch(async (error: unknown) => {
      ctx.note('releases', await ctx.health.releases(project.id))
      throw error
    })
    ctx.note(`health of ${RELEASE}`, health)
    const expected: Partial<Health> = {
      sessions: total,
      sessions_healthy: sent.healthy,
      sessions_errored: sent.errored,
      sessions_crashed: sent.crashed,
      sessions_unhandled: sent.unhandled,
      sessions_abnormal: sent.abnormal,
      users: sent.users,
    }
    expect(health).toMatchObject(expected)
    ctx.say(
      `the SDK sent ${requests} request sessions in aggregates (${aggregated.crashed} crashed, ${aggregated.errored} errored)${total > requests ? ` and ${total - requests} process session(s)` : ''}`,
    )
  },
}
