import type { FastifyInstance } from 'fastify'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { auditRows, linkPath, smtpOf, submitLinkForm } from './support/account-helpers.ts'
import { ADMIN, testApp } from './support/helpers.ts'
import { type SmtpReceiver, startSmtpReceiver } from './support/receivers.ts'
import { createUser, signIn } from './support/ui-helpers.ts'

let smtp: SmtpReceiver
let app: FastifyInstance

beforeAll(async () => {
  smtp = await startSmtpReceiver()
  app = await testApp({ smtp: smtpOf(smtp) })
})
afterAll(async () => {
  await app.close()
  await smtp.close()
})
afterEach(() => {
  vi.useRealTimers()
})

const invite = (email: string, headers: Record<string, string> = ADMIN) =>
  app.inject({
    method: 'POST',
    url: '/api/0/invitations/',
    headers,
    payload: { email },
  })

describe('invitations', () => {
  it('invite → mail → accept → signed in; the invitee can sign in later; audited', async () => {
    const res = await invite('new@example.com')
    expect(res.statusCode).toBe(201)
    const body = res.json<{ id: number; link: string; emailed: boolean; expires_at: string }>()
    expect(body.emailed).toBe(true)
    const week = Date.parse(body.expires_at) - Date.now()
    expect(week).toBeGreaterThan(6.9 * 86_400_000)
    expect(week).toBeLessThanOrEqual(7 * 86_400_000)

    const mail = (await smtp.waitForMessages(1)).find((m) => m.rcptTo.includes('new@example.com'))
    expect(mail).toBeDefined()
    const path = linkPath(mail?.text ?? '')
    expect(body.link.endsWith(path)).toBe(true)

    const pending = await app.inject({ method: 'GET', url: '/api/0/invitations/', headers: ADMIN })
    expect(pending.json<{ email: string }[]>().map((i) => i.email)).toContain('new@example.com')

    const { page, res: accepted } = await submitLinkForm(app, path, 'a good long password')
    expect(page.statusCode).toBe(200)
    expect(page.body).toContain('new@example.com')
    expect(accepted.statusCode).toBe(303)
    const session = accepted.cookies.find((c) => c.name === 'ingest_session')?.value
    expect(session).toBeDefined()
    const home = await app.inject({
      method: 'GET',
      url: '/projects',
      headers: { cookie: `ingest_session=${session}` },
    })
    expect(home.statusCode).toBe(200)
    expect(home.body).toContain('new@example.com')
    await signIn(app, 'new@example.com', 'a good long password')

    const user = await app.services.store.findUserByEmail('new@example.com')
    expect(user?.isAdmin).toBe(false)
    const inv = await auditRows(app, 'user.invite')
    expect(inv).toHaveLength(1)
    expect(inv[0]?.actor).toEqual({ kind: 'admin-token', user_id: null })
    const acc = await auditRows(app, 'invite.accept')
    expect(acc).toHaveLength(1)
    expect(acc[0]?.actor).toEqual({ kind: 'user', user_id: user?.id })

    // Used: the page and the form both answer 410; pending no longer lists it.
    expect((await app.inject({ method: 'GET', url: path })).statusCode).toBe(410)
    const again = await app.inject({ method: 'GET', url: '/api/0/invitations/', headers: ADMIN })
    expect(again.json<{ email: string }[]>().map((i) => i.email)).not.toContain('new@example.com')
    // An existing user cannot be invited again.
    expect((await invite('new@example.com')).statusCode).toBe(409)
  })

  it('an expired link answers 410, an unknown one 404, a short password 400', async () => {
    const res = await invite('late@example.com')
    const path = linkPath(res.json<{ link: string }>().link)
    const short = await submitLinkForm(app, path, 'short')
    expect(short.res.statusCode).toBe(400)
    expect(short.res.body).toContain('at least 8 characters')
    const differ = await submitLinkForm(app, path, 'a good long password', 'another one')
    expect(differ.res.statusCode).toBe(400)

    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Date.now() + 7 * 86_400_000 + 1000)
    const page = await app.inject({ method: 'GET', url: path })
    expect(page.statusCode).toBe(410)
    expect(page.body).toContain('expired')
    vi.useRealTimers()

    const unknown = await app.inject({ method: 'GET', url: '/accept-invite/not-a-real-secret' })
    expect(unknown.statusCode).toBe(404)
    expect(await app.services.store.findUserByEmail('late@example.com')).toBeUndefined()
  })

  it('a revoked invitation stops working; revoking is audited once', async () => {
    const res = await invite('revoked@example.com')
    const { id, link } = res.json<{ id: number; link: string }>()
    const del = await app.inject({
      method: 'DELETE',
      url: `/api/0/invitations/${id}/`,
      headers: ADMIN,
    })
    expect(del.statusCode).toBe(204)
    const twice = await app.inject({
      method: 'DELETE',
      url: `/api/0/invitations/${id}/`,
      headers: ADMIN,
    })
    expect(twice.statusCode).toBe(404)
    const { page } = await submitLinkForm(app, linkPath(link), 'a good long password')
    expect(page.statusCode).toBe(410)
    expect(page.body).toContain('revoked')
    const rows = await auditRows(app, 'invite.revoke')
    expect(rows.filter((r) => r.target === `invite:${id}`)).toHaveLength(1)
  })

  it('the settings page invites (link shown to copy); non-admins get 403', async () => {
    await createUser(app, 'boss@example.com', 'correct horse battery', true)
    await createUser(app, 'plain@example.com', 'correct horse battery', false)
    const boss = await signIn(app, 'boss@example.com')
    const page = await boss.get('/settings/users')
    expect(page.statusCode).toBe(200)
    const sent = await boss.post('/settings/invitations', { email: 'fromui@example.com' })
    expect(sent.statusCode).toBe(201)
    const path = linkPath(sent.body)
    expect(sent.body).toContain('data-copy="invite-link"')
    expect((await app.inject({ method: 'GET', url: path })).statusCode).toBe(200)
    const id = (await app.services.store.listPendingInvites(Date.now())).find(
      (i) => i.email === 'fromui@example.com',
    )?.id
    const revoked = await boss.post(`/settings/invitations/${id}/revoke`, {})
    expect(revoked.statusCode).toBe(303)
    expect((await app.inject({ method: 'GET', url: path })).statusCode).toBe(410)
    expect((await boss.get('/settings/users')).body).not.toContain('fromui@example.com')
    const rows = await auditRows(app, 'user.invite')
    const boss_ = await app.services.store.findUserByEmail('boss@example.com')
    expect(rows[0]?.actor).toEqual({ kind: 'user', user_id: boss_?.id })

    const plain = await signIn(app, 'plain@example.com')
    expect((await plain.get('/settings/users')).statusCode).toBe(403)
    expect((await plain.post('/settings/invitations', { email: 'x@example.com' })).statusCode).toBe(
      403,
    )
    const api = await app.inject({
      method: 'POST',
      url: '/api/0/invitations/',
      headers: { cookie: plain.cookie, 'x-csrf-token': plain.csrf },
      payload: { email: 'y@example.com' },
    })
    expect(api.statusCode).toBe(403)
    const bad = await invite('not an address')
    expect(bad.statusCode).toBe(400)
  })
})

describe('invitations without SMTP', () => {
  it('returns the link to copy and says it was not mailed', async () => {
    const plain = await testApp()
    try {
      const res = await plain.inject({
        method: 'POST',
        url: '/api/0/invitations/',
        headers: ADMIN,
        payload: { email: 'nomail@example.com', is_admin: true },
      })
      expect(res.statusCode).toBe(201)
      const body = res.json<{ emailed: boolean; link: string; is_admin: boolean }>()
      expect(body.emailed).toBe(false)
      expect(body.is_admin).toBe(true)
      const { res: accepted } = await submitLinkForm(plain, linkPath(body.link), 'long enough pw')
      expect(accepted.statusCode).toBe(303)
      expect((await plain.services.store.findUserByEmail('nomail@example.com'))?.isAdmin).toBe(true)
    } finally {
      await plain.close()
    }
  })
})
