import type { FastifyInstance } from 'fastify'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DEFAULT_PROTECTION } from '../src/config.ts'
import { ADMIN, createProject, testApp } from './support/helpers.ts'
import { cookieValue, createUser, csrfOf, formBody, signIn } from './support/ui-helpers.ts'

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }
let app: FastifyInstance

beforeEach(async () => {
  app = await testApp()
  await createUser(app)
})
afterEach(() => app.close())

async function attempt(password: string, remoteAddress: string) {
  const form = await app.inject({ method: 'GET', url: '/login', remoteAddress })
  return app.inject({
    method: 'POST',
    url: '/login',
    remoteAddress,
    headers: { ...FORM, cookie: `ingest_login_csrf=${cookieValue(form, 'ingest_login_csrf')}` },
    payload: formBody({ email: 'ui@example.com', password, _csrf: csrfOf(form.body) }),
  })
}

describe('sign-in throttling', () => {
  it("a stranger's failures never lock the real user out from their own address", async () => {
    for (let i = 0; i < 12; i++) await attempt('wrong', '203.0.113.9')
    const stranger = await attempt('correct horse battery', '203.0.113.9')
    expect(stranger.statusCode).toBe(429)
    expect(Number(stranger.headers['retry-after'])).toBeGreaterThan(0)
    const owner = await attempt('correct horse battery', '198.51.100.7')
    expect(owner.statusCode).toBe(303)
  }, 60_000)

  it('backs one address off across accounts', async () => {
    const form = await app.inject({ method: 'GET', url: '/login', remoteAddress: '203.0.113.5' })
    const headers = {
      ...FORM,
      cookie: `ingest_login_csrf=${cookieValue(form, 'ingest_login_csrf')}`,
    }
    const codes: number[] = []
    for (let i = 0; i < 32; i++) {
      const res = await app.inject({
        method: 'POST',
        url: '/login',
        remoteAddress: '203.0.113.5',
        headers,
        payload: formBody({ email: `u${i}@example.com`, password: 'x', _csrf: csrfOf(form.body) }),
      })
      codes.push(res.statusCode)
    }
    expect(codes.slice(0, 30).every((c) => c === 401)).toBe(true)
    expect(codes[31]).toBe(429)
  }, 60_000)
})

describe('after sign-in, next', () => {
  it('is followed only to same-origin paths, never answering 500', async () => {
    const ui = await signIn(app)
    const go = (next: string) => ui.get(`/login?next=${next}`)
    expect((await go('/%09/evil.example/')).headers.location).toBe('/')
    expect((await go('%2F%2Fevil.example')).headers.location).toBe('/')
    const latin = await go('/issues/%E4%BD%A0%E5%A5%BD')
    expect(latin.statusCode).toBe(303)
    expect(latin.headers.location).toBe('/issues/%E4%BD%A0%E5%A5%BD')
    expect((await go('/projects')).headers.location).toBe('/projects')
  })
})

describe('alert webhooks', () => {
  it('refuses private, loopback and link-local targets unless the setting allows them', async () => {
    const strict = await testApp({
      protection: { ...DEFAULT_PROTECTION, allowPrivateWebhooks: false, diskMinFreeBytes: 0 },
    })
    try {
      const p = await createProject(strict)
      const rule = (url: string) =>
        strict.inject({
          method: 'POST',
          url: `/api/0/projects/${p.id}/alert-rules/`,
          headers: ADMIN,
          payload: {
            name: 'hook',
            conditions: [{ type: 'new_issue' }],
            channel: { type: 'webhook', url },
          },
        })
      for (const url of [
        'http://127.0.0.1:9/hook',
        'http://169.254.169.254/latest/meta-data',
        'http://[::1]:9/',
        'http://10.0.0.1/',
      ]) {
        const res = await rule(url)
        expect(res.statusCode, url).toBe(400)
        expect(res.json<{ detail: string }>().detail).toMatch(/ALERT_ALLOW_PRIVATE_TARGETS/)
      }
      expect((await rule('https://93.184.216.34/hook')).statusCode).toBe(201)
    } finally {
      await strict.close()
    }
    // The shared test config allows loopback explicitly (its receivers listen there).
    const p = await createProject(app)
    const allowed = await app.inject({
      method: 'POST',
      url: `/api/0/projects/${p.id}/alert-rules/`,
      headers: ADMIN,
      payload: {
        name: 'hook',
        conditions: [{ type: 'new_issue' }],
        channel: { type: 'webhook', url: 'http://127.0.0.1:9/hook' },
      },
    })
    expect(allowed.statusCode).toBe(201)
  })
})
