import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN, createProject, sentryAuth, testApp } from './helpers.ts'
import { createUser, signIn, type UiClient } from './ui-helpers.ts'

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

/** Posts one envelope item (session, check-in, transaction …) with the project's key. */
async function item(p: { id: number; key: string }, type: string, payload: unknown) {
  const res = await app.inject({
    method: 'POST',
    url: `/api/${p.id}/envelope/`,
    headers: { 'x-sentry-auth': sentryAuth(p.key) },
    payload: `{}\n{"type":"${type}"}\n${JSON.stringify(payload)}`,
  })
  expect(res.statusCode).toBe(200)
}

describe('projects', () => {
  it('creates a project from the form and shows its DSN and four SDK snippets', async () => {
    const res = await ui.post('/projects', { name: 'Web <shop>' })
    expect(res.statusCode).toBe(303)
    const setup = await ui.get(res.headers.location as string)
    expect(setup.statusCode).toBe(200)
    const dsn = /id="dsn" type="text" readonly value="([^"]+)"/.exec(setup.body)?.[1] ?? ''
    expect(dsn).toMatch(/^http:\/\/[0-9a-f]{32}@127\.0\.0\.1:8000\/\d+$/)
    expect(setup.body).toContain('Project “Web &lt;shop&gt;” created.')
    for (const id of ['node', 'browser', 'python', 'rust']) {
      const snippet = new RegExp(`<pre id="snippet-${id}">([\\s\\S]*?)</pre>`).exec(setup.body)?.[1]
      expect(snippet, id).toContain(dsn)
    }
    expect(setup.body).toContain('tracesSampleRate: 0,')
    expect(setup.body).toContain('traces_sample_rate=0,')
    expect(setup.body).toContain('traces_sample_rate: 0.0,')
    expect(setup.body).toContain('Initialise the SDK before anything else is imported')
    const list = await ui.get('/projects')
    expect(list.body).toContain('Web &lt;shop&gt;')
  })

  it('refuses an empty project name with a 400 page', async () => {
    const res = await ui.post('/projects', { name: '  ' })
    expect(res.statusCode).toBe(400)
    expect(res.headers['content-type']).toContain('text/html')
  })

  it('answers unknown projects and issues with a 404 page', async () => {
    for (const url of ['/projects/999999/issues', '/issues/999999', '/projects/abc/settings']) {
      const res = await ui.get(url)
      expect(res.statusCode, url).toBe(404)
      expect(res.body).toContain('Not found')
    }
  })
})

describe('settings', () => {
  it('mints a component DSN with a label, refuses a duplicate, and revokes a key', async () => {
    const p = await createProject(app, 'settings-keys')
    const minted = await ui.post(`/projects/${p.id}/settings/keys`, { label: 'worker' })
    expect(minted.statusCode).toBe(303)
    const page = await ui.get(minted.headers.location as string)
    expect(page.body).toContain('Component DSN created.')
    expect(page.body).toContain('component: worker')
    const keys = (
      await app.inject({ method: 'GET', url: `/api/0/projects/${p.id}/keys/`, headers: ADMIN })
    ).json<{ id: number; component: string | null; dsn: string; revoked: boolean }[]>()
    const worker = keys.find((k) => k.component === 'worker')
    expect(worker).toBeDefined()
    expect(page.body).toContain(worker?.dsn)

    // A label in use is a conflict (409): the settings page again, saying why.
    const again = await ui.post(`/projects/${p.id}/settings/keys`, { label: 'worker' })
    expect(again.statusCode).toBe(409)
    expect(again.body).toContain('class="flash error"')

    const revoked = await ui.post(`/projects/${p.id}/settings/keys/${worker?.id}/revoke`, {})
    expect(revoked.statusCode).toBe(303)
    const workerKey = new URL(worker?.dsn ?? '').username
    const refused = await app.inject({
      method: 'POST',
      url: `/api/${p.id}/envelope/`,
      headers: { 'x-sentry-auth': sentryAuth(workerKey) },
      payload: '{}\n{"type":"event"}\n{"message":"x"}',
    })
    expect(refused.statusCode).toBe(403)
  })

  it('sets and removes the quota', async () => {
    const p = await createProject(app, 'settings-quota')
    expect(
      (await ui.post(`/projects/${p.id}/settings/quota`, { events: '50', window_seconds: '3600' }))
        .statusCode,
    ).toBe(303)
    const shown = await app.inject({
      method: 'GET',
      url: `/api/0/projects/${p.id}/`,
      headers: ADMIN,
    })
    expect(shown.json()).toMatchObject({ quota: { events: 50, window_seconds: 3600 } })
    expect((await ui.get(`/projects/${p.id}/settings`)).body).toContain(
      'At most 50 events per 3,600 s',
    )
    expect((await ui.post(`/projects/${p.id}/settings/quota`, { events: 'lots' })).statusCode).toBe(
      400,
    )
    await ui.post(`/projects/${p.id}/settings/quota`, { events: '' })
    const removed = await app.inject({
      method: 'GET',
      url: `/api/0/projects/${p.id}/`,
      headers: ADMIN,
    })
    expect(removed.json()).toMatchObject({ quota: null })
  })

  it('creates alert rules from the form, refuses bad ones, and deletes them', async () => {
    const p = await createProject(app, 'settings-rules')
    const created = await ui.post(`/projects/${p.id}/settings/rules`, {
      name: 'Ops hook',
      new_issue: '1',
      frequency: '1',
      threshold: '25',
      window_minutes: '10',
      channel: 'webhook',
      url: 'http://127.0.0.1:9/hook',
      format: 'slack',
    })
    expect(created.statusCode).toBe(303)
    const rules = (
      await app.inject({
        method: 'GET',
        url: `/api/0/projects/${p.id}/alert-rules/`,
        headers: ADMIN,
      })
    ).json<{ id: number; name: string; conditions: unknown[]; channel: unknown }[]>()
    expect(rules).toHaveLength(1)
    expect(rules[0]).toMatchObject({
      name: 'Ops hook',
      conditions: [{ type: 'new_issue' }, { type: 'frequency', threshold: 25, window_minutes: 10 }],
      channel: { type: 'webhook', url: 'http://127.0.0.1:9/hook', format: 'slack' },
    })
    const page = (await ui.get(`/projects/${p.id}/settings`)).body
    expect(page).toContain('more than 25 events in 10 min')

    const bad = await ui.post(`/projects/${p.id}/settings/rules`, {
      name: 'No conditions',
      channel: 'webhook',
      url: 'not a url',
    })
    expect(bad.statusCode).toBe(400)
    expect(bad.body).toContain('class="flash error"')

    const deleted = await ui.post(`/projects/${p.id}/settings/rules/${rules[0]?.id}/delete`, {})
    expect(deleted.statusCode).toBe(303)
    const after = await app.inject({
      method: 'GET',
      url: `/api/0/projects/${p.id}/alert-rules/`,
      headers: ADMIN,
    })
    expect(after.json()).toEqual([])
  })
})

describe('releases, crons and outcomes pages', () => {
  it('shows crash-free rates per release and environment with charts', async () => {
    const p = await createProject(app, 'health')
    const now = new Date().toISOString()
    const session = (sid: string, status: string, did: string, environment = 'production') => ({
      sid,
      did,
      init: true,
      started: now,
      timestamp: now,
      status,
      errors: status === 'crashed' ? 1 : 0,
      attrs: { release: 'shop@3.0.0', environment },
    })
    await item(p, 'session', session('a'.repeat(32), 'exited', 'u1'))
    await item(p, 'session', session('b'.repeat(32), 'exited', 'u2'))
    await item(p, 'session', session('c'.repeat(32), 'exited', 'u3'))
    await item(p, 'session', session('d'.repeat(32), 'crashed', 'u4'))
    await item(p, 'session', session('e'.repeat(32), 'crashed', 'u5', 'staging'))
    const all = (await ui.get(`/projects/${p.id}/releases`)).body
    expect(all).toContain('shop@3.0.0')
    expect(all).toMatch(/<td class="num">60%<\/td><td class="num">5<\/td>/)
    expect(all.match(/<svg class="chart"/g)).toHaveLength(2)
    const prod = (await ui.get(`/projects/${p.id}/releases?environment=production`)).body
    expect(prod).toMatch(/<td class="num">75%<\/td><td class="num">4<\/td>/)
    expect(prod).toContain('<option value="staging">staging</option>')
  })

  it('shows monitors with schedule, time zone, status, next run and a run timeline', async () => {
    const p = await createProject(app, 'crons')
    const config = {
      schedule: { type: 'interval', value: 10, unit: 'minute' },
      timezone: 'America/New_York',
      checkin_margin: 1,
      max_runtime: 5,
    }
    for (const [i, status] of ['ok', 'error'].entries()) {
      await item(p, 'check_in', {
        check_in_id: String(i + 1).repeat(32),
        monitor_slug: 'billing-sync',
        status,
        duration: 2,
        monitor_config: config,
      })
    }
    const list = (await ui.get(`/projects/${p.id}/crons`)).body
    expect(list).toContain('billing-sync')
    expect(list).toContain('every 10 minutes')
    expect(list).toContain('America/New_York')
    expect(list).toContain('<span class="badge error">error</span>')
    expect(list.match(/<span class="(ok|error) run"/g)).toEqual([
      '<span class="ok run"',
      '<span class="error run"',
    ])
    const detail = await ui.get(`/projects/${p.id}/crons/billing-sync`)
    expect(detail.statusCode).toBe(200)
    expect(detail.body).toContain('5 min')
    const link = /href="(\/projects\/\d+\/events\/[0-9a-f]{32})"/.exec(detail.body)?.[1]
    expect(link).toBeDefined()
    const toIssue = await ui.get(link ?? '')
    expect(toIssue.statusCode).toBe(303)
    expect(toIssue.headers.location).toMatch(/^\/issues\/\d+\?event=[0-9a-f]{32}$/)
    expect((await ui.get(`/projects/${p.id}/crons/nope`)).statusCode).toBe(404)
  })

  it('shows outcomes by reason as a chart and a table, filterable by component', async () => {
    const p = await createProject(app, 'outcomes')
    const minted = await app.inject({
      method: 'POST',
      url: `/api/0/projects/${p.id}/keys/`,
      headers: ADMIN,
      payload: { label: 'cli' },
    })
    const cliKey = new URL(minted.json<{ dsn: string }>().dsn).username
    await item(p, 'event', { message: 'from default key' })
    await item(p, 'transaction', { type: 'transaction' })
    await item({ id: p.id, key: cliKey }, 'event', { message: 'from cli' })
    await item({ id: p.id, key: cliKey }, 'log', { items: [] })
    const all = (await ui.get(`/projects/${p.id}/outcomes`)).body
    expect(all).toContain('unsupported:transaction')
    expect(all).toContain('unsupported:log')
    expect(all).toMatch(/<b>2<\/b><span>accepted<\/span>/)
    expect(all).toContain('<svg class="chart"')
    const cli = (await ui.get(`/projects/${p.id}/outcomes?component=cli`)).body
    expect(cli).toMatch(/<b>1<\/b><span>accepted<\/span>/)
    expect(cli).toContain('unsupported:log')
    expect(cli).not.toContain('unsupported:transaction')
  })
})
