import type { FastifyInstance } from 'fastify'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { auditRows } from './support/account-helpers.ts'
import { ADMIN, testApp } from './support/helpers.ts'
import { createUser, signIn, type UiClient } from './support/ui-helpers.ts'

let app: FastifyInstance

beforeEach(async () => {
  app = await testApp()
})
afterEach(async () => {
  await app.close()
})

/** Creates an API token through the token page; returns its secret. */
async function tokenOf(client: UiClient): Promise<string> {
  const res = await client.post('/account/tokens', { name: 'script' })
  const m = /id="new-token" type="text" readonly value="([^"]+)"/.exec(res.body)
  if (m?.[1] === undefined) throw new Error('no token shown')
  return m[1]
}

const setActive = (
  userId: number,
  verb: 'deactivate' | 'reactivate',
  headers: Record<string, string> = ADMIN,
) => app.inject({ method: 'POST', url: `/api/0/users/${userId}/${verb}/`, headers })

describe('deactivation', () => {
  it("cuts the user's live session and API token at once; reactivation restores sign-in and tokens", async () => {
    const colleague = await createUser(app, 'colleague@example.com', 'correct horse battery', false)
    const browser = await signIn(app, 'colleague@example.com')
    const token = await tokenOf(browser)
    const bearer = { authorization: `Bearer ${token}` }
    expect((await browser.get('/projects')).statusCode).toBe(200)
    const before = await app.inject({ method: 'GET', url: '/api/0/projects/', headers: bearer })
    expect(before.statusCode).toBe(200)

    const off = await setActive(colleague.id, 'deactivate')
    expect(off.statusCode).toBe(200)
    expect(off.json<{ deactivated_at: string | null }>().deactivated_at).not.toBeNull()

    const page = await browser.get('/projects')
    expect(page.statusCode).toBe(303)
    expect(page.headers.location).toMatch(/^\/login/)
    const viaCookie = await app.inject({
      method: 'GET',
      url: '/api/0/projects/',
      headers: { cookie: browser.cookie },
    })
    expect(viaCookie.statusCode).toBe(401)
    const viaToken = await app.inject({ method: 'GET', url: '/api/0/projects/', headers: bearer })
    expect(viaToken.statusCode).toBe(401)
    expect(viaToken.json<{ detail: string }>().detail).toContain('deactivated')
    const uiToken = await app.inject({ method: 'GET', url: '/projects', headers: bearer })
    expect(uiToken.statusCode).toBe(401)
    await expect(signIn(app, 'colleague@example.com')).rejects.toThrow(/403/)

    // Deactivating again changes nothing and records nothing.
    expect((await setActive(colleague.id, 'deactivate')).statusCode).toBe(200)
    const on = await setActive(colleague.id, 'reactivate')
    expect(on.json<{ deactivated_at: string | null }>().deactivated_at).toBeNull()
    const after = await app.inject({ method: 'GET', url: '/api/0/projects/', headers: bearer })
    expect(after.statusCode).toBe(200)
    await signIn(app, 'colleague@example.com')

    const off_ = await auditRows(app, 'user.deactivate')
    const on_ = await auditRows(app, 'user.reactivate')
    expect(off_).toHaveLength(1)
    expect(on_).toHaveLength(1)
    expect(off_[0]).toMatchObject({
      actor: { kind: 'admin-token', user_id: null },
      target: `user:${colleague.id}`,
    })
  })

  it('refuses to deactivate the last active admin; a second admin can be', async () => {
    const first = await createUser(app, 'first@example.com', 'correct horse battery', true)
    const last = await setActive(first.id, 'deactivate')
    expect(last.statusCode).toBe(409)
    expect(last.json<{ detail: string }>().detail).toContain('last active admin')
    const second = await createUser(app, 'second@example.com', 'correct horse battery', true)
    // Through the page, as the first admin: the second one goes, then the first cannot.
    const browser = await signIn(app, 'first@example.com')
    const done = await browser.post(`/settings/users/${second.id}/deactivate`, {})
    expect(done.statusCode).toBe(303)
    expect((await app.services.store.getUser(second.id))?.deactivatedAt).not.toBeNull()
    const self = await browser.post(`/settings/users/${first.id}/deactivate`, {})
    expect(self.statusCode).toBe(409)
    expect((await app.services.store.getUser(first.id))?.deactivatedAt).toBeNull()
    const rows = await auditRows(app, 'user.deactivate')
    expect(rows).toHaveLength(1)
    expect(rows[0]?.actor).toEqual({ kind: 'user', user_id: first.id })
  })

  it('only admins manage users; an unknown user is 404', async () => {
    await createUser(app, 'plain@example.com', 'correct horse battery', false)
    const target = await createUser(app, 'other@example.com', 'correct horse battery', false)
    const plain = await signIn(app, 'plain@example.com')
    const headers = { cookie: plain.cookie, 'x-csrf-token': plain.csrf }
    expect((await setActive(target.id, 'deactivate', headers)).statusCode).toBe(403)
    expect((await app.inject({ method: 'GET', url: '/api/0/users/', headers })).statusCode).toBe(
      403,
    )
    expect((await plain.post(`/settings/users/${target.id}/deactivate`, {})).statusCode).toBe(403)
    expect((await setActive(999_999, 'deactivate')).statusCode).toBe(404)
    const list = await app.inject({ method: 'GET', url: '/api/0/users/', headers: ADMIN })
    expect(list.json<{ email: string }[]>().map((u) => u.email)).toEqual([
      'plain@example.com',
      'other@example.com',
    ])
    expect(list.body).not.toContain('scrypt')
  })
})
