import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { accountMailer } from '../src/accounts/mailer.ts'
import { auditRows, linkPath, smtpOf, submitLinkForm } from './support/account-helpers.ts'
import { testApp } from './support/helpers.ts'
import { type SmtpReceiver, startSmtpReceiver } from './support/receivers.ts'
import { cookieValue, createUser, formBody, signIn } from './support/ui-helpers.ts'

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

/** Posts the forgot-password form from one browser (same CSRF cookie every time). */
async function forgot(target: FastifyInstance, email: string, ip = '127.0.0.1') {
  const form = await target.inject({ method: 'GET', url: '/forgot-password', remoteAddress: ip })
  const csrf = cookieValue(form, 'ingest_login_csrf') ?? ''
  return target.inject({
    method: 'POST',
    url: '/forgot-password',
    remoteAddress: ip,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: `ingest_login_csrf=${csrf}`,
    },
    // The double-submit token is the cookie's value (the page without SMTP has no form).
    payload: formBody({ email, _csrf: csrf }),
  })
}

/** A page without its per-browser CSRF values, to compare two answers. */
const strip = (body: string) => body.replace(/value="[\w-]{43}"/g, 'value=""')

describe('password reset by e-mail', () => {
  it('mails a one-time link; using it sets the password, ends other sessions and signs in', async () => {
    const user = await createUser(app, 'forgetful@example.com', 'old password here', false)
    const oldSession = await signIn(app, 'forgetful@example.com', 'old password here')

    const known = await forgot(app, 'forgetful@example.com', '10.0.0.1')
    const unknown = await forgot(app, 'nobody@example.com', '10.0.0.2')
    // No enumeration: the same status and page whether or not the address has an account.
    expect(known.statusCode).toBe(200)
    expect(unknown.statusCode).toBe(200)
    expect(strip(known.body)).toBe(strip(unknown.body))
    await accountMailer(app.services).idle()
    const mails = await smtp.waitForMessages(1)
    expect(mails).toHaveLength(1)
    expect(mails[0]?.rcptTo).toEqual(['forgetful@example.com'])
    const path = linkPath(mails[0]?.text ?? '')

    const { res } = await submitLinkForm(app, path, 'brand new password')
    expect(res.statusCode).toBe(303)
    expect(cookieValue(res, 'ingest_session')).toBeDefined()
    const ended = await oldSession.get('/projects')
    expect(ended.statusCode).toBe(303)
    await expect(signIn(app, 'forgetful@example.com', 'old password here')).rejects.toThrow(/401/)
    await signIn(app, 'forgetful@example.com', 'brand new password')

    const again = await app.inject({ method: 'GET', url: path })
    expect(again.statusCode).toBe(410)
    const rows = await auditRows(app, 'password.reset')
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({
      actor: { kind: 'user', user_id: user.id },
      details: { via: 'email-link' },
    })
  })

  it('is rate-limited per address like sign-in (429 with Retry-After)', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 4; i++)
      statuses.push((await forgot(app, 'target@example.com', '10.0.1.1')).statusCode)
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200])
    expect(statuses[3]).toBe(429)
    const limited = await forgot(app, 'target@example.com', '10.0.1.2')
    expect(limited.statusCode).toBe(429)
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
  })

  it('a reset link lasts one hour, then answers 410; a deactivated user gets no mail', async () => {
    await createUser(app, 'slow@example.com', 'old password here', false)
    const gone = await createUser(app, 'gone@example.com', 'old password here', false)
    await app.services.store.setUserDeactivated(gone.id, Date.now())
    const before = smtp.messages.length
    await forgot(app, 'gone@example.com', '10.0.2.1')
    await forgot(app, 'slow@example.com', '10.0.2.1')
    await accountMailer(app.services).idle()
    const mails = await smtp.waitForMessages(before + 1)
    expect(mails.slice(before).map((m) => m.rcptTo[0])).toEqual(['slow@example.com'])
    const path = linkPath(mails[before]?.text ?? '')
    expect((await app.inject({ method: 'GET', url: path })).statusCode).toBe(200)
    try {
      vi.useFakeTimers({ toFake: ['Date'] })
      vi.setSystemTime(Date.now() + 3_600_000 + 1000)
      const page = await app.inject({ method: 'GET', url: path })
      expect(page.statusCode).toBe(410)
      expect(page.body).toContain('expired')
    } finally {
      vi.useRealTimers()
    }
  })
})

describe('password reset without SMTP', () => {
  it('gives the same answer for any address and points to the operator command', async () => {
    const plain = await testApp()
    try {
      await createUser(plain, 'someone@example.com', 'old password here', false)
      const a = await forgot(plain, 'someone@example.com')
      const b = await forgot(plain, 'nobody@example.com')
      expect(a.statusCode).toBe(200)
      expect(strip(a.body)).toBe(strip(b.body))
      expect(a.body).toContain('reset-admin-password')
    } finally {
      await plain.close()
    }
  })
})
