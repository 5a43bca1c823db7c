import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AuditRowJson, auditRows } from './support/account-helpers.ts'
import { ADMIN, createProject, testApp } from './support/helpers.ts'
import { createUser, signIn, type UiClient } from './support/ui-helpers.ts'

let app: FastifyInstance
let admin: UiClient
let adminId: number
let projectId: number

beforeAll(async () => {
  app = await testApp()
  adminId = (await createUser(app, 'auditor@example.com', 'correct horse battery', true)).id
  admin = await signIn(app, 'auditor@example.com')
})
afterAll(async () => {
  await app.close()
})

const api = (method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: Record<string, unknown>) =>
  payload === undefined
    ? app.inject({ method, url, headers: ADMIN })
    : app.inject({ method, url, headers: ADMIN, payload })

/** The one row of `action` written since `before` (ids grow), failing unless exactly one. */
async function onlyRow(action: string, before: number): Promise<AuditRowJson> {
  const rows = (await auditRows(app, action)).filter((r) => r.id > before)
  expect(rows, action).toHaveLength(1)
  return rows[0] as AuditRowJson
}

const lastId = async () => (await auditRows(app))[0]?.id ?? 0

const TOKEN_ACTOR = { kind: 'admin-token', user_id: null }

describe('audited actions through the API (admin token)', () => {
  it('project, keys, quota and alert rules each leave exactly one row', async () => {
    let mark = await lastId()
    projectId = (await createProject(app, 'audited')).id
    expect(await onlyRow('project.create', mark)).toMatchObject({
      actor: TOKEN_ACTOR,
      project_id: projectId,
      target: `project:${projectId}`,
    })

    mark = await lastId()
    const key = await api('POST', `/api/0/projects/${projectId}/keys/`, { label: 'worker' })
    expect(key.statusCode).toBe(201)
    const keyId = key.json<{ id: number }>().id
    expect(await onlyRow('key.create', mark)).toMatchObject({
      actor: TOKEN_ACTOR,
      target: `key:${keyId}`,
      details: { label: 'worker' },
    })

    mark = await lastId()
    expect((await api('DELETE', `/api/0/projects/${projectId}/keys/${keyId}/`)).statusCode).toBe(
      204,
    )
    expect((await api('DELETE', `/api/0/projects/${projectId}/keys/${keyId}/`)).statusCode).toBe(
      204,
    )
    expect(await onlyRow('key.revoke', mark)).toMatchObject({ target: `key:${keyId}` })

    mark = await lastId()
    const quota = { quota: { events: 10, window_seconds: 60 } }
    expect((await api('PUT', `/api/0/projects/${projectId}/`, quota)).statusCode).toBe(200)
    expect(await onlyRow('quota.change', mark)).toMatchObject({
      project_id: projectId,
      details: { quota: { events: 10, window_seconds: 60 } },
    })

    mark = await lastId()
    const rule = await api('POST', `/api/0/projects/${projectId}/alert-rules/`, {
      name: '<b>pager</b>',
      conditions: [{ type: 'new_issue' }],
      channel: { type: 'webhook', url: 'http://127.0.0.1:9/hook', format: 'json' },
    })
    expect(rule.statusCode).toBe(201)
    const ruleId = rule.json<{ id: number }>().id
    expect(await onlyRow('alert_rule.create', mark)).toMatchObject({
      target: `alert_rule:${ruleId}`,
    })
    mark = await lastId()
    const del = await api('DELETE', `/api/0/projects/${projectId}/alert-rules/${ruleId}/`)
    expect(del.statusCode).toBe(204)
    expect(await onlyRow('alert_rule.delete', mark)).toMatchObject({ actor: TOKEN_ACTOR })
    // A refused change (400) leaves nothing.
    mark = await lastId()
    expect(
      (await api('POST', `/api/0/projects/${projectId}/keys/`, { label: '' })).statusCode,
    ).toBe(400)
    expect(await lastId()).toBe(mark)
  })
})

describe('audited actions through the UI (a signed-in admin)', () => {
  it('keys, quota, rules and tokens each leave exactly one row with the user as actor', async () => {
    const me = { kind: 'user', user_id: adminId }
    const base = `/projects/${projectId}/settings`
    const steps: [string, string, Record<string, string>][] = [
      ['key.create', `${base}/keys`, { label: 'cli' }],
      ['quota.change', `${base}/quota`, { events: '', window_seconds: '3600' }],
      [
        'alert_rule.create',
        `${base}/rules`,
        { name: 'hook', new_issue: '1', channel: 'webhook', url: 'http://127.0.0.1:9/h' },
      ],
      ['token.create', '/account/tokens', { name: 'deploy' }],
    ]
    for (const [action, url, form] of steps) {
      const mark = await lastId()
      const res = await admin.post(url, form)
      expect(res.statusCode, `${action}: ${res.body.slice(0, 200)}`).toBeLessThan(400)
      expect(await onlyRow(action, mark)).toMatchObject({ actor: me })
    }
    const keyId = (await app.services.store.listKeys(projectId)).find((k) => k.label === 'cli')?.id
    let mark = await lastId()
    await admin.post(`${base}/keys/${keyId}/revoke`, {})
    expect(await onlyRow('key.revoke', mark)).toMatchObject({ actor: me, target: `key:${keyId}` })
    const rule = (await app.services.store.listAlertRules(projectId))[0]
    mark = await lastId()
    await admin.post(`${base}/rules/${rule?.id}/delete`, {})
    expect(await onlyRow('alert_rule.delete', mark)).toMatchObject({ actor: me })
    const token = (await app.services.store.listTokens(adminId))[0]
    mark = await lastId()
    await admin.post(`/account/tokens/${token?.id}/revoke`, {})
    expect(await onlyRow('token.revoke', mark)).toMatchObject({ actor: me })
  })
})

describe('reading the audit log', () => {
  it('pages newest first by cursor and filters by action', async () => {
    const all = await auditRows(app)
    expect(all.length).toBeGreaterThan(6)
    const ids = all.map((r) => r.id)
    expect([...ids].sort((a, b) => b - a)).toEqual(ids)
    const seen: number[] = []
    let cursor = ''
    for (let i = 0; i < 20; i++) {
      const res = await app.inject({
        method: 'GET',
        url: `/api/0/audit-log/?limit=3${cursor === '' ? '' : `&cursor=${cursor}`}`,
        headers: ADMIN,
      })
      seen.push(...res.json<{ id: number }[]>().map((r) => r.id))
      cursor = String(res.headers['x-next-cursor'] ?? '')
      if (cursor === '') break
    }
    expect(seen).toEqual(ids)
    const keys = await auditRows(app, 'key.create')
    expect(keys.map((r) => r.action)).toEqual(['key.create', 'key.create'])
    const bad = await app.inject({
      method: 'GET',
      url: '/api/0/audit-log/?cursor=x',
      headers: ADMIN,
    })
    expect(bad.statusCode).toBe(400)
  })

  it('the page shows client values as text; only admins may read it', async () => {
    const page = await admin.get('/settings/audit-log?action=alert_rule.create')
    expect(page.statusCode).toBe(200)
    expect(page.body).toContain('&lt;b&gt;pager&lt;/b&gt;')
    expect(page.body).not.toContain('<b>pager</b>')
    expect(page.body).not.toContain('token.create</code>')
    expect((await admin.get('/settings/audit-log')).body).toContain('token.create</code>')

    await createUser(app, 'viewer@example.com', 'correct horse battery', false)
    const plain = await signIn(app, 'viewer@example.com')
    expect((await plain.get('/settings/audit-log')).statusCode).toBe(403)
    const viaApi = await app.inject({
      method: 'GET',
      url: '/api/0/audit-log/',
      headers: { cookie: plain.cookie },
    })
    expect(viaApi.statusCode).toBe(403)
  })
})
