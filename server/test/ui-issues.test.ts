import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newPublicKey } from '../src/http-kit/tokens.ts'
import type { EventToWrite } from '../src/store/types.ts'
import { ADMIN, createProject, type TestProject, testApp } from './helpers.ts'
import { createUser, ingest, signIn, type UiClient } from './ui-helpers.ts'

let app: FastifyInstance
let ui: UiClient
beforeAll(async () => {
  app = await testApp()
  await createUser(app)
  ui = await signIn(app)
})
afterAll(async () => {
  await app.close()
})

const frames = [
  { filename: 'node_modules/lib/index.js', function: 'libCall', lineno: 10, in_app: false },
  {
    filename: 'src/cart.js',
    function: 'checkout',
    lineno: 42,
    colno: 7,
    in_app: true,
    pre_context: ['function checkout(cart) {', '  validate(cart)'],
    context_line: '  throw new Error("checkout failed")',
    post_context: ['}'],
  },
]

const richEvent = {
  release: 'shop@2.1.0',
  environment: 'production',
  exception: {
    values: [
      { type: 'TypeError', value: 'inner cause', stacktrace: { frames: [frames[1]] } },
      {
        type: 'Error',
        value: 'checkout failed',
        mechanism: { type: 'onerror', handled: false },
        stacktrace: { frames },
      },
    ],
  },
  breadcrumbs: {
    values: [
      { timestamp: 1_790_000_000, category: 'ui.click', message: 'clicked pay', level: 'info' },
    ],
  },
  tags: { browser: 'Chrome 156', 'shop.region': 'eu' },
  user: { id: 'u-17', email: 'buyer@example.com' },
  contexts: { os: { name: 'Linux', version: '6.1' } },
}

async function project(name: string): Promise<TestProject> {
  return createProject(app, name)
}

const issueIdOf = async (projectId: number, eventId: string) => {
  const res = await app.inject({
    method: 'GET',
    url: `/api/0/projects/${projectId}/events/${eventId}/`,
    headers: ADMIN,
  })
  return res.json<{ issue_id: number }>().issue_id
}

describe('issue detail', () => {
  it('shows the exception chain, frames with context, breadcrumbs, tags, user and chart', async () => {
    const p = await project('detail')
    const eventId = await ingest(app, p.id, p.key, richEvent)
    const issueId = await issueIdOf(p.id, eventId)
    const res = await ui.get(`/issues/${issueId}`)
    expect(res.statusCode).toBe(200)
    const body = res.body
    expect(body).toContain('Error: checkout failed')
    expect(body).toMatch(/Caused by <\/span>TypeError: inner cause/)
    expect(body).toContain('<span class="badge error">unhandled</span>')
    expect(body).toMatch(/<span class="badge in-app">in app<\/span> <span>src\/cart.js<\/span>/)
    expect(body).toContain('1 library frame')
    expect(body).toMatch(
      /<li class="hit"><span class="ln">42<\/span> {2}throw new Error\(&quot;checkout failed&quot;\)<\/li>/,
    )
    expect(body).toContain('<span class="ln">40</span>function checkout(cart) {')
    expect(body).toContain('clicked pay')
    expect(body).toMatch(/<th>shop.region<\/th><td>eu<\/td>/)
    expect(body).toContain('buyer@example.com')
    expect(body).toMatch(/<th>release<\/th><td class="mono">shop@2.1.0<\/td>/)
    expect(body).toMatch(/<th>environment<\/th><td class="mono">production<\/td>/)
    expect(body).toMatch(/<svg class="chart"[^>]*>[\s\S]*<rect class="bar"/)
    expect(body).toContain('Linux')
  })

  it('steps through the events of an issue, newest first', async () => {
    const p = await project('stepping')
    const ids: string[] = []
    for (let i = 0; i < 3; i++) ids.push(await ingest(app, p.id, p.key, { message: 'step me' }))
    const issueId = await issueIdOf(p.id, ids[0] ?? '')
    const newest = await ui.get(`/issues/${issueId}`)
    expect(newest.body).toContain(`<span class="mono">${ids[2]}</span>`)
    const older = /rel="prev" href="([^"]+)"/.exec(newest.body)?.[1]?.replaceAll('&amp;', '&')
    expect(older).toContain(`event=${ids[1]}`)
    const middle = await ui.get(older ?? '')
    expect(middle.body).toContain(`<span class="mono">${ids[1]}</span>`)
    expect(middle.body).toContain(`rel="next" href="/issues/${issueId}?event=${ids[2]}`)
    const oldest = await ui.get(`/issues/${issueId}?event=${ids[0]}`)
    expect(oldest.body).not.toContain('rel="prev"')
    expect(oldest.body).toContain('‹ Older</span>')
    const other = await project('other')
    const foreign = await ingest(app, other.id, other.key, { message: 'not this issue' })
    expect((await ui.get(`/issues/${issueId}?event=${foreign}`)).statusCode).toBe(404)
  })

  it('opens the issue link that alerts carry', async () => {
    const p = await project('alert-link')
    const issueId = await issueIdOf(p.id, await ingest(app, p.id, p.key, { message: 'linked' }))
    const res = await ui.get(`/projects/${p.id}/issues/${issueId}/`)
    expect(res.statusCode).toBe(303)
    expect(res.headers.location).toBe(`/issues/${issueId}`)
    expect((await ui.get(`/projects/${p.id + 1000}/issues/${issueId}/`)).statusCode).toBe(404)
  })

  it('shows HTML and script from an event as text, never as markup', async () => {
    const p = await project('escaping')
    const evil = '<script>alert("xss")</script>'
    const eventId = await ingest(app, p.id, p.key, {
      message: `${evil} message`,
      tags: { '<b>key</b>': '<img src=x onerror=alert(1)>' },
      user: { email: '"><svg onload=alert(2)>' },
      breadcrumbs: { values: [{ message: '<iframe src="javascript:alert(3)">', category: 'x' }] },
      exception: {
        values: [
          {
            type: '<i>Bad</i>',
            value: evil,
            stacktrace: {
              frames: [
                {
                  filename: '<b>file.js</b>',
                  function: '<svg onload=alert(4)>',
                  lineno: 1,
                  in_app: true,
                  context_line: '<script>document.title="pwned"</script>',
                },
              ],
            },
          },
        ],
      },
    })
    const issueId = await issueIdOf(p.id, eventId)
    for (const url of [`/issues/${issueId}`, `/projects/${p.id}/issues`]) {
      const body = (await ui.get(url)).body
      for (const markup of [
        '<script>alert',
        '<img src=x',
        '<svg onload',
        '<iframe',
        '<b>file',
        '<i>Bad',
      ]) {
        expect(body, `${url} must not contain ${markup}`).not.toContain(markup)
      }
      expect(body).toContain('&lt;script&gt;alert(&quot;xss&quot;)&lt;/script&gt;')
    }
    const detail = (await ui.get(`/issues/${issueId}`)).body
    expect(detail).toContain('&lt;img src=x onerror=alert(1)&gt;')
    expect(detail).toContain('&lt;svg onload=alert(4)&gt;')
    expect(detail).toContain('&lt;script&gt;document.title=&quot;pwned&quot;&lt;/script&gt;')
  })
})

/** Writes issues straight through the store: one event each, newest last. */
async function seed(
  p: TestProject,
  n: number,
  over: (i: number) => Partial<EventToWrite> = () => ({}),
) {
  const store = app.services.store
  const key = (await store.listKeys(p.id))[0]
  if (key === undefined) throw new Error('no key')
  const base = Date.now() - n * 1000
  const rows: EventToWrite[] = []
  for (let i = 0; i < n; i++) {
    rows.push({
      projectId: p.id,
      keyId: key.id,
      eventId: `${p.id.toString(16).padStart(8, '0')}${i.toString(16).padStart(24, '0')}`,
      timestamp: base + i * 1000,
      received: base + i * 1000,
      level: 'error',
      title: `Seeded issue number ${i}`,
      culprit: `app.js in handler${i}`,
      type: 'Error',
      value: `seeded ${i}`,
      release: 'r@1',
      environment: i % 2 === 0 ? 'production' : 'staging',
      component: null,
      hash: `seed-${p.id}-${i}`,
      groupingVersion: 'v1',
      payload: '{}',
      ...over(i),
    })
  }
  for (let i = 0; i < rows.length; i += 2000) {
    await store.write([{ events: rows.slice(i, i + 2000), outcomes: [] }])
  }
}

const rowsOf = (body: string) =>
  [...body.matchAll(/<tr data-issue="(\d+)">/g)].map((m) => Number(m[1]))

describe('issue list', () => {
  it('pages through issues with keyset cursors', async () => {
    const p = await project('paging')
    await seed(p, 120)
    const first = await ui.get(`/projects/${p.id}/issues`)
    expect(rowsOf(first.body)).toHaveLength(50)
    expect(first.body).toContain('Seeded issue number 119')
    const next = /href="([^"]+)" rel="next"/.exec(first.body)?.[1]?.replaceAll('&amp;', '&')
    expect(next).toMatch(/cursor=/)
    const second = await ui.get(next ?? '')
    const seen = new Set([...rowsOf(first.body), ...rowsOf(second.body)])
    expect(seen.size).toBe(100)
    const third = await ui.get(
      /href="([^"]+)" rel="next"/.exec(second.body)?.[1]?.replaceAll('&amp;', '&') ?? '',
    )
    expect(rowsOf(third.body)).toHaveLength(20)
    expect(third.body).not.toContain('rel="next"')
    expect(third.body).toContain('Seeded issue number 0')
  })

  it('filters by environment, release, component and free text', async () => {
    const p = await project('filters')
    const worker = await app.services.store.createKey(p.id, 'Worker', 'worker', newPublicKey())
    await ingest(app, p.id, p.key, {
      message: 'web checkout broke',
      environment: 'production',
      release: 'web@1',
    })
    await ingest(app, p.id, p.key, {
      message: 'staging only thing',
      environment: 'staging',
      release: 'web@2',
    })
    await ingest(app, p.id, worker.publicKey, {
      message: 'worker queue stalled',
      release: 'worker@7',
    })
    const titles = async (q: string) => {
      const res = await ui.get(`/projects/${p.id}/issues?${q}`)
      expect(res.statusCode).toBe(200)
      return [...res.body.matchAll(/<a href="\/issues\/\d+">([^<]+)<\/a>/g)].map((m) => m[1]).sort()
    }
    expect(await titles('environment=staging')).toEqual(['staging only thing'])
    expect(await titles('release=web%401')).toEqual(['web checkout broke'])
    expect(await titles('component=worker')).toEqual(['worker queue stalled'])
    expect(await titles('query=queue')).toEqual(['worker queue stalled'])
    expect(await titles('')).toHaveLength(3)
    const page = (await ui.get(`/projects/${p.id}/issues`)).body
    expect(page).toContain('<option value="worker">worker</option>')
    expect(page).toContain('<option value="staging">staging</option>')
  })

  it('lists 10,000 issues fast (first page, a filter, a later page)', async () => {
    const p = await project('ten-thousand')
    await seed(p, 10_000)
    const timed = async (url: string) => {
      const t0 = performance.now()
      const res = await ui.get(url)
      const ms = performance.now() - t0
      expect(res.statusCode).toBe(200)
      return { ms, body: res.body }
    }
    const first = await timed(`/projects/${p.id}/issues`)
    expect(rowsOf(first.body)).toHaveLength(50)
    expect(first.body).toMatch(/Unresolved<span class="count">10,000<\/span>/)
    expect(first.ms).toBeLessThan(1000)
    const filtered = await timed(`/projects/${p.id}/issues?environment=staging&query=number`)
    expect(rowsOf(filtered.body)).toHaveLength(50)
    expect(filtered.ms).toBeLessThan(1000)
    const next = /href="([^"]+)" rel="next"/.exec(first.body)?.[1]?.replaceAll('&amp;', '&') ?? ''
    const later = await timed(next)
    expect(rowsOf(later.body)).toHaveLength(50)
    expect(later.ms).toBeLessThan(1000)
    const fragment = await timed(`/projects/${p.id}/issues/fragment?tab=review`)
    expect(rowsOf(fragment.body)).toHaveLength(50)
    expect(fragment.ms).toBeLessThan(1000)
  })
})

describe('triage from the UI', () => {
  const apiIssue = async (id: number) =>
    (await app.inject({ method: 'GET', url: `/api/0/issues/${id}/`, headers: ADMIN })).json<{
      status: string
      for_review: boolean
      ignore_until: string | null
      ignore_count: number | null
    }>()

  it('resolves, ignores for a time or a count, marks reviewed and unresolves', async () => {
    const p = await project('triage')
    const issueId = await issueIdOf(p.id, await ingest(app, p.id, p.key, { message: 'triage me' }))
    const act = (form: Record<string, string>) => ui.post(`/issues/${issueId}/action`, form)

    expect((await ui.get(`/projects/${p.id}/issues?tab=review`)).body).toContain('triage me')
    expect((await act({ action: 'review' })).statusCode).toBe(303)
    expect((await apiIssue(issueId)).for_review).toBe(false)
    expect((await ui.get(`/projects/${p.id}/issues?tab=review`)).body).not.toContain('triage me')

    await act({ action: 'resolve' })
    expect((await apiIssue(issueId)).status).toBe('resolved')
    expect((await ui.get(`/projects/${p.id}/issues?tab=resolved`)).body).toContain('triage me')

    await act({ action: 'ignore', for: '3600' })
    const ignored = await apiIssue(issueId)
    expect(ignored.status).toBe('ignored')
    const until = Date.parse(ignored.ignore_until ?? '')
    expect(until - Date.now()).toBeGreaterThan(3500_000)
    expect(until - Date.now()).toBeLessThan(3700_000)
    expect((await ui.get(`/issues/${issueId}`)).body).toContain('until 20')

    await act({ action: 'unresolve' })
    await act({ action: 'ignore', count: '5' })
    const counted = await apiIssue(issueId)
    expect(counted.status).toBe('ignored')
    expect(counted.ignore_count).toBe(5)
    expect((await ui.get(`/projects/${p.id}/issues?tab=ignored`)).body).toContain('triage me')

    await act({ action: 'unresolve' })
    expect((await apiIssue(issueId)).status).toBe('unresolved')
  })

  it('applies bulk actions to the selected issues of the project only', async () => {
    const p = await project('bulk')
    const a = await issueIdOf(p.id, await ingest(app, p.id, p.key, { message: 'bulk alpha' }))
    const b = await issueIdOf(p.id, await ingest(app, p.id, p.key, { message: 'bulk beta' }))
    const c = await issueIdOf(p.id, await ingest(app, p.id, p.key, { message: 'bulk gamma' }))
    const q = await project('bulk-other')
    const foreign = await issueIdOf(
      q.id,
      await ingest(app, q.id, q.key, { message: 'bulk foreign' }),
    )
    const res = await ui.post(`/projects/${p.id}/issues/bulk`, {
      action: 'resolve',
      issue: [String(a), String(b), String(foreign)],
      back: `/projects/${p.id}/issues?tab=unresolved`,
    })
    expect(res.statusCode).toBe(303)
    expect(res.headers.location).toBe(`/projects/${p.id}/issues?tab=unresolved`)
    expect((await apiIssue(a)).status).toBe('resolved')
    expect((await apiIssue(b)).status).toBe('resolved')
    expect((await apiIssue(c)).status).toBe('unresolved')
    expect((await apiIssue(foreign)).status).toBe('unresolved')
  })
})
