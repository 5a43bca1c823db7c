import { readFile } from 'node:fs/promises'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Action } from '../src/http/permissions.ts'
import type { Access } from '../src/http/route-access.ts'
import type { RouteEntry } from '../src/route-table.ts'
import { TEAM_ROLES, type TeamRole, type TokenScope } from '../src/store/team-types.ts'
import { accessTable, normalizeTable } from './access/access-table.ts'
import { fillUrl, type Ids, idsOf, MISSING, type RouteSpec, SPECS } from './access/route-specs.ts'
import { buildTeam, type Caller, callersFor, type TeamObjects } from './access/world.ts'
import { ADMIN, eid, sendItems, testApp } from './support/helpers.ts'
import { formBody } from './support/ui-helpers.ts'

/**
 * The proof of isolation: two teams with a project each; users of every role in team A, each
 * signed in and with a token of every scope. Every route of the route table (so a new route
 * cannot escape) is called for team B's objects and must answer 404 exactly as a missing
 * object does (or 403 where the route needs the instance admin), and for team A's objects it
 * must succeed exactly when the permission model allows the caller's role and scope, else 403.
 * Under team A's own project or team, an object id of another project (team B's, or a second
 * project of team A) must answer byte for byte what a missing id answers, API and UI alike.
 */

/**
 * What each role and scope may do, written out here from the wording rather than read
 * from `permissions.ts`, so a change to the model fails this test instead of moving with it.
 */
const ROLE_MAY: Record<TeamRole, Action[]> = {
  viewer: ['project:read'],
  member: ['project:read', 'project:triage'],
  admin: ['project:read', 'project:triage', 'project:admin', 'team:admin'],
}
const SCOPE_MAY: Record<TokenScope, Action[]> = {
  read: ['project:read'],
  write: ['project:read', 'project:triage'],
  admin: ['project:read', 'project:triage', 'project:admin', 'team:admin', 'instance:admin'],
}

/** The generated table sits between these lines of docs/accounts.md. */
const TABLE_START = '<!-- route access table: generated, checked by access-isolation.test.ts -->'
const TABLE_END = '<!-- end of route access table -->'

let app: FastifyInstance
let a: TeamObjects
let b: TeamObjects
/** A second project of team A: its objects are visible to A's callers, but not under `a`. */
let a2: TeamObjects
let callers: Caller[]
let base: string

beforeAll(async () => {
  app = await testApp({ testClock: true, cronClockIntervalMs: 0 })
  a = await buildTeam(app, 'alpha')
  b = await buildTeam(app, 'bravo')
  a2 = await buildTeam(app, 'alpha2', a)
  callers = []
  for (const role of TEAM_ROLES) callers.push(...(await callersFor(app, a.teamId, role)))
  base = await app.listen({ port: 0, host: '127.0.0.1' })
}, 120_000)
afterAll(async () => {
  await app?.close()
})

const key = (r: RouteEntry) => `${r.method} ${r.url}`
/** The spec of a HEAD twin is its GET's. */
const specKey = (r: RouteEntry) => `${r.method === 'HEAD' ? 'GET' : r.method} ${r.url}`

/** Routes a caller can reach (all but public ones); HEAD twins of GET routes on request. */
function callable(withHead = false): (RouteEntry & { access: Access; spec: RouteSpec })[] {
  return app.routeTable
    .filter(
      (r) =>
        (withHead || r.method !== 'HEAD') && r.access !== undefined && r.access.need !== 'public',
    )
    .map((r) => ({ ...r, access: r.access as Access, spec: SPECS[specKey(r)] ?? {} }))
}

async function call(
  route: RouteEntry & { spec: RouteSpec },
  caller: Caller,
  ids: Ids,
): Promise<LightMyRequestResponse> {
  const isApi = route.url.startsWith('/api/')
  const body = route.spec.body?.(ids)
  const headers: Record<string, string> = { ...caller.headers(isApi, route.method) }
  let payload: string | Buffer | undefined
  const rawBody = route.spec.rawBody?.()
  if (rawBody !== undefined) {
    headers['content-type'] = rawBody.contentType
    payload = rawBody.payload
  } else if (body !== undefined && isApi) {
    headers['content-type'] = 'application/json'
    payload = JSON.stringify(body)
  } else if (route.method === 'POST' && !isApi) {
    headers['content-type'] = 'application/x-www-form-urlencoded'
    payload = formBody({ ...(body as Record<string, string> | undefined), ...caller.form })
  }
  return app.inject({
    method: route.method as 'GET',
    url: fillUrl(route.url, ids, route.spec.query?.(ids)),
    headers,
    ...(payload === undefined ? {} : { payload }),
  })
}

/** Where two bodies part: a few characters of each from the first difference. */
function divergence(x: string, y: string): string {
  let i = 0
  while (i < x.length && x[i] === y[i]) i++
  return `at ${i}: ${JSON.stringify(x.slice(i, i + 80))} vs ${JSON.stringify(y.slice(i, i + 80))}`
}

const leaksB = (body: string) =>
  body.includes(b.projectName) || body.includes(b.teamName) || body.includes('bravo-owner')

it('every route of the route table declares its access', () => {
  const missing = app.routeTable.filter((r) => r.access === undefined).map(key)
  expect(missing).toEqual([])
  // The table is the real one: API, UI pages and ingest are all in it.
  expect(app.routeTable.length).toBeGreaterThan(60)
})

it('a route without a declaration is refused, not opened', async () => {
  const extra = await testApp()
  extra.get('/undeclared', async () => ({ secret: true }))
  const res = await extra.inject({ url: '/undeclared', headers: ADMIN })
  expect(res.statusCode).toBe(403)
  expect(res.json()).toEqual({ detail: 'this route declares no access rule' })
  await extra.close()
})

describe("team A's callers and team B's objects", () => {
  it('every route answers 404 exactly as for a missing object, or 403 for instance-admin routes', async () => {
    const problems: string[] = []
    // A narrower token sees no more than the same user's widest one: sessions and admin-scope
    // tokens of each role stand for all (the role pass below covers every scope).
    const widest = callers.filter((c) => c.scope === undefined || c.scope === 'admin')
    for (const route of callable(true)) {
      if (route.spec.noTeamObject !== undefined) continue
      for (const caller of widest) {
        const res = await call(route, caller, idsOf(b))
        const where = `${key(route)} as ${caller.label}: ${res.statusCode} ${res.body.slice(0, 160)}`
        if (route.access.need === 'instance:admin') {
          if (res.statusCode !== 403) problems.push(`${where} (want 403)`)
        } else if (route.access.need === 'signed-in') {
          // No object of a team: the answer must simply not show team B.
          if (res.statusCode >= 500 || leaksB(res.body)) problems.push(`${where} (leaks team B)`)
          if (route.url.includes(':tokenId') && res.statusCode !== 404)
            problems.push(`${where} (another user's token: want 404)`)
        } else {
          const gone = await call(route, caller, MISSING)
          if (res.statusCode !== 404) problems.push(`${where} (want 404)`)
          else if (res.body !== gone.body)
            problems.push(
              `${where} (body differs from a missing object's: ${gone.body.slice(0, 160)})`,
            )
        }
      }
    }
    expect(problems).toEqual([])
  }, 300_000)

  it("under team A's own project, another project's object answers as a missing one", async () => {
    const problems: string[] = []
    let compared = 0
    const widest = callers.filter((c) => c.scope === undefined || c.scope === 'admin')
    for (const route of callable(true)) {
      const on = 'on' in route.access ? route.access.on : undefined
      const located =
        on === undefined
          ? undefined
          : 'param' in on
            ? on.param
            : 'teamSlug' in on
              ? on.teamSlug
              : undefined
      // The path's object ids beyond the one access is decided on, and those of body or query.
      const params = [...route.url.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1] as string)
      const objects = [...params.filter((p) => p !== located), ...(route.spec.objectIds ?? [])]
      const ownsObjects = route.access.need !== 'instance:admin' && route.access.need !== 'public'
      if (!ownsObjects || objects.length === 0 || route.spec.noTeamObject !== undefined) continue
      // A second project of team A shares the team's members: another team's only, there.
      for (const other of located === 'teamId' || located === 'org' ? [b] : [b, a2]) {
        const pick = (from: Ids) => Object.fromEntries(objects.map((o) => [o, from[o] as string]))
        for (const caller of widest) {
          const res = await call(route, caller, { ...idsOf(a), ...pick(idsOf(other)) })
          const gone = await call(route, caller, { ...idsOf(a), ...pick(MISSING) })
          const where = `${key(route)} with ${other.projectName}'s ${objects.join(', ')} as ${caller.label}`
          compared++
          if (res.statusCode !== gone.statusCode || res.body !== gone.body)
            problems.push(
              `${where}: ${res.statusCode} ≠ missing ${gone.statusCode}, ${divergence(res.body, gone.body)}`,
            )
          // A caller who may act must reach the object lookup (not a 403 or 400 for both).
          const want = route.spec.missingStatus ?? 404
          if (caller.label === 'admin (session)' && gone.statusCode !== want)
            problems.push(`${where}: missing answers ${gone.statusCode}, want ${want}`)
        }
      }
    }
    expect(problems).toEqual([])
    // Every UI and API route with an object id under a project or team was compared.
    expect(compared).toBeGreaterThan(100)
  }, 300_000)

  it('lists show only team A', async () => {
    for (const caller of callers) {
      const projects = await app.inject({
        url: '/api/0/projects/',
        headers: caller.headers(true, 'GET'),
      })
      expect(projects.json<{ id: number }[]>().map((p) => p.id)).toContain(a.projectId)
      expect(projects.body).not.toContain(b.projectName)
      const teams = await app.inject({ url: '/api/0/teams/', headers: caller.headers(true, 'GET') })
      expect(teams.json<{ id: number }[]>().map((t) => t.id)).toEqual([a.teamId])
      const page = await app.inject({ url: '/projects', headers: caller.headers(false, 'GET') })
      expect(page.body).toContain(a.projectName)
      expect(page.body).not.toContain(b.projectName)
    }
    // The instance admin sees both.
    const all = await app.inject({ url: '/api/0/projects/', headers: ADMIN })
    expect(all.json<{ id: number }[]>().map((p) => p.id)).toEqual(
      expect.arrayContaining([a.projectId, b.projectId]),
    )
  })

  it('ingest with a DSN key is unaffected by accounts', async () => {
    const res = await sendItems(app, { id: b.projectId, key: b.key }, [
      ['event', { event_id: eid(4242), message: 'still ingested' }],
    ])
    expect(res.statusCode, res.body).toBe(200)
  })
})

describe("team A's callers and team A's objects", () => {
  it('each role and scope succeeds exactly where the permission model allows it, else 403', async () => {
    const problems: string[] = []
    // Signing out ends the session the later routes of that caller use: last.
    const routes = callable().sort(
      (x, y) => Number(x.url === '/logout') - Number(y.url === '/logout'),
    )
    for (const caller of callers) {
      for (const route of routes) {
        const need = route.access.need
        const allowed =
          need === 'signed-in' ||
          (need !== 'public' &&
            ROLE_MAY[caller.role].includes(need) &&
            (caller.scope === undefined || SCOPE_MAY[caller.scope].includes(need)))
        const ids = { ...idsOf(a), ...(allowed ? await route.spec.fresh?.(app, a, caller) : {}) }
        let status: number
        let body: string
        if (route.spec.stream === true && allowed) {
          const ctl = new AbortController()
          const res = await fetch(`${base}${fillUrl(route.url, ids, route.spec.query?.(ids))}`, {
            headers: caller.headers(false, 'GET'),
            signal: ctl.signal,
          })
          status = res.status
          body = ''
          ctl.abort()
        } else {
          const res = await call(route, caller, ids)
          status = res.statusCode
          body = res.body
        }
        const where = `${key(route)} as ${caller.label}: ${status} ${body.slice(0, 200)}`
        if (allowed && status >= 400) problems.push(`${where} (allowed: want success)`)
        if (!allowed && status !== 403) problems.push(`${where} (not allowed: want 403)`)
      }
    }
    expect(problems).toEqual([])
  }, 300_000)
})

it('docs/accounts.md lists every route with the access it declares', async () => {
  const doc = await readFile(new URL('../../docs/accounts.md', import.meta.url), 'utf8')
  const table = accessTable(app.routeTable)
  const start = doc.indexOf(TABLE_START)
  const end = doc.indexOf(TABLE_END)
  const shown = doc.slice(start + TABLE_START.length, end).trim()
  expect(normalizeTable(shown), `replace the table in docs/accounts.md with:\n${table}`).toBe(
    normalizeTable(table),
  )
})
