import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { hashToken } from '../src/http-kit/tokens.ts'
import { SESSION_IDLE_MS } from '../src/ui/session-auth.ts'
import { ADMIN, createProject, testApp } from './helpers.ts'
import { cookieValue, createUser, csrfOf, formBody, signIn } from './ui-helpers.ts'

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

let app: FastifyInstance
beforeEach(async () => {
  app = await testApp()
  await createUser(app)
})
afterEach(async () => {
  await app.close()
})

describe('UI sign-in', () => {
  it('redirects pages to the login form when signed out, and answers 401 to fragments', async () => {
    const page = await app.inject({ method: 'GET', url: '/projects?x=1' })
    expect(page.statusCode).toBe(303)
    expect(page.headers.location).toBe(`/login?next=${encodeURIComponent('/projects?x=1')}`)
    const live = await app.inject({
      method: 'GET',
      url: '/ui/live?project=1',
      headers: { accept: 'text/event-stream' },
    })
    expect(live.statusCode).toBe(401)
    const fragment = await app.inject({
      method: 'GET',
      url: '/projects/1/issues/fragment',
      headers: { 'x-ui-fragment': '1' },
    })
    expect(fragment.statusCode).toBe(401)
    const post = await app.inject({
      method: 'POST',
      url: '/projects',
      headers: FORM,
      payload: 'name=x',
    })
    expect(post.statusCode).toBe(401)
  })

  it('signs in with e-mail and password and sets a hardened session cookie', async () => {
    const form = await app.inject({ method: 'GET', url: '/login?next=/projects/1/issues' })
    expect(form.statusCode).toBe(200)
    expect(form.headers['content-security-policy']).toContain("script-src 'self'")
    const loginCsrf = cookieValue(form, 'ingest_login_csrf')
    const res = await app.inject({
      method: 'POST',
      url: '/login',
      headers: { ...FORM, cookie: `ingest_login_csrf=${loginCsrf}` },
      payload: formBody({
        email: 'ui@example.com',
        password: 'correct horse battery',
        next: '/projects/1/issues',
        _csrf: csrfOf(form.body),
      }),
    })
    expect(res.statusCode).toBe(303)
    expect(res.headers.location).toBe('/projects/1/issues')
    const cookie = res.cookies.find((c) => c.name === 'ingest_session')
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' })
    expect(cookie?.secure).toBeFalsy()
    expect(cookie?.value).toMatch(/^[\w-]{43}$/)
    const page = await app.inject({
      method: 'GET',
      url: '/projects',
      headers: { cookie: `ingest_session=${cookie?.value}` },
    })
    expect(page.statusCode).toBe(200)
    expect(page.body).toContain('ui@example.com')
  })

  it('refuses a wrong password with 401 and no session', async () => {
    const form = await app.inject({ method: 'GET', url: '/login' })
    const res = await app.inject({
      method: 'POST',
      url: '/login',
      headers: { ...FORM, cookie: `ingest_login_csrf=${cookieValue(form, 'ingest_login_csrf')}` },
      payload: formBody({ email: 'ui@example.com', password: 'nope', _csrf: csrfOf(form.body) }),
    })
    expect(res.statusCode).toBe(401)
    expect(res.body).toContain('Wrong e-mail or password')
    expect(cookieValue(res, 'ingest_session')).toBeUndefined()
  })

  it('refuses the login form without its CSRF token (403)', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/login',
      headers: FORM,
      payload: formBody({ email: 'ui@example.com', password: 'correct horse battery' }),
    })
    expect(res.statusCode).toBe(403)
    expect(cookieValue(res, 'ingest_session')).toBeUndefined()
  })

  it('never redirects off-site after login', async () => {
    const form = await app.inject({ method: 'GET', url: '/login' })
    for (const next of ['//evil.example/', 'https://evil.example/', '/\\evil.example']) {
      const res = await app.inject({
        method: 'POST',
        url: '/login',
        headers: { ...FORM, cookie: `ingest_login_csrf=${cookieValue(form, 'ingest_login_csrf')}` },
        payload: formBody({
          email: 'ui@example.com',
          password: 'correct horse battery',
          next,
          _csrf: csrfOf(form.body),
        }),
      })
      expect(res.headers.location).toBe('/')
    }
  })

  it('marks the cookie Secure behind TLS only when X-Forwarded-Proto is trusted', async () => {
    const login = async (a: FastifyInstance) => {
      const form = await a.inject({ method: 'GET', url: '/login' })
      return a.inject({
        method: 'POST',
        url: '/login',
        headers: {
          ...FORM,
          'x-forwarded-proto': 'https',
          cookie: `ingest_login_csrf=${cookieValue(form, 'ingest_login_csrf')}`,
        },
        payload: formBody({
          email: 'ui@example.com',
          password: 'correct horse battery',
          _csrf: csrfOf(form.body),
        }),
      })
    }
    const untrusted = await login(app)
    expect(untrusted.cookies.find((c) => c.name === 'ingest_session')?.secure).toBeFalsy()
    const proxied = await testApp({ trustProxy: true })
    try {
      await createUser(proxied)
      const trusted = await login(proxied)
      expect(trusted.cookies.find((c) => c.name === 'ingest_session')?.secure).toBe(true)
    } finally {
      await proxied.close()
    }
  })

  it('throttles repeated failures for one account', async () => {
    const form = await app.inject({ method: 'GET', url: '/login' })
    const headers = {
      ...FORM,
      cookie: `ingest_login_csrf=${cookieValue(form, 'ingest_login_csrf')}`,
    }
    const attempt = (password: string) =>
      app.inject({
        method: 'POST',
        url: '/login',
        headers,
        payload: formBody({ email: 'ui@example.com', password, _csrf: csrfOf(form.body) }),
      })
    for (let i = 0; i < 10; i++) expect((await attempt('wrong')).statusCode).toBe(401)
    const blocked = await attempt('correct horse battery')
    expect(blocked.statusCode).toBe(429)
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0)
  })

  it('stores only a hash of the cookie and refuses expired sessions', async () => {
    const ui = await signIn(app)
    const secret = ui.cookie.split('=')[1] ?? ''
    const store = app.services.store
    expect(await store.findSession(secret, Date.now())).toBeUndefined()
    expect(await store.findSession(hashToken(secret), Date.now())).toMatchObject({
      user: { email: 'ui@example.com' },
    })
    const later = Date.now() + SESSION_IDLE_MS + 1000
    expect(await store.findSession(hashToken(secret), later)).toBeUndefined()
    expect(await store.deleteExpiredSessions(later)).toBe(1)
    expect((await ui.get('/projects')).statusCode).toBe(303)
  })

  it('signs out: the session stops working', async () => {
    const ui = await signIn(app)
    const out = await ui.post('/logout', {})
    expect(out.statusCode).toBe(303)
    expect(out.headers.location).toBe('/login')
    expect((await ui.get('/projects')).statusCode).toBe(303)
  })
})

describe('CSRF', () => {
  it('refuses a form posted without the token with 403 and changes nothing', async () => {
    const ui = await signIn(app)
    const res = await ui.post('/projects', { name: 'sneaky' }, { csrf: false })
    expect(res.statusCode).toBe(403)
    expect(res.headers['content-type']).toContain('text/html')
    const wrong = await ui.post(
      '/projects',
      { name: 'sneaky', _csrf: 'x'.repeat(43) },
      { csrf: false },
    )
    expect(wrong.statusCode).toBe(403)
    const list = await app.inject({ method: 'GET', url: '/api/0/projects/', headers: ADMIN })
    expect(list.json<{ name: string }[]>().map((p) => p.name)).not.toContain('sneaky')
    const ok = await ui.post('/projects', { name: 'allowed' })
    expect(ok.statusCode).toBe(303)
  })

  it('gives each session its own token', async () => {
    const a = await signIn(app)
    const b = await signIn(app)
    expect(a.csrf).not.toBe(b.csrf)
    const res = await app.inject({
      method: 'POST',
      url: '/projects',
      headers: { ...FORM, cookie: a.cookie },
      payload: formBody({ name: 'x', _csrf: b.csrf }),
    })
    expect(res.statusCode).toBe(403)
  })
})

describe('the JSON API with the UI session', () => {
  it('accepts the session cookie for reads', async () => {
    const ui = await signIn(app)
    const project = await createProject(app, 'api-via-session')
    const res = await app.inject({
      method: 'GET',
      url: `/api/0/projects/${project.id}/`,
      headers: { cookie: ui.cookie },
    })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ name: 'api-via-session' })
    expect((await app.inject({ method: 'GET', url: '/api/0/projects/' })).statusCode).toBe(401)
  })

  it('requires X-CSRF-Token for writes made with the cookie', async () => {
    const ui = await signIn(app)
    const send = (headers: Record<string, string>) =>
      app.inject({
        method: 'POST',
        url: '/api/0/projects/',
        headers: { cookie: ui.cookie, ...headers },
        payload: { name: 'via-session' },
      })
    const refused = await send({})
    expect(refused.statusCode).toBe(403)
    expect(refused.json()).toMatchObject({ detail: expect.stringContaining('CSRF') })
    expect((await send({ 'x-csrf-token': ui.csrf })).statusCode).toBe(201)
  })

  it('does not parse form bodies on the API (no cross-site form posts into it)', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/0/projects/',
      headers: { ...ADMIN, ...FORM },
      payload: 'name=form-post',
    })
    expect(res.statusCode).toBe(415)
  })
})

describe('API tokens page', () => {
  it('creates a token shown once that works on the API, and revokes it', async () => {
    const ui = await signIn(app)
    const created = await ui.post('/account/tokens', { name: 'deploy script' })
    expect(created.statusCode).toBe(201)
    const secret = /id="new-token" type="text" readonly value="(ingt_[0-9a-f]+)"/.exec(
      created.body,
    )?.[1]
    expect(secret).toBeDefined()
    const bearer = { authorization: `Bearer ${secret}` }
    expect(
      (await app.inject({ method: 'GET', url: '/api/0/projects/', headers: bearer })).statusCode,
    ).toBe(200)

    const list = await ui.get('/account/tokens')
    expect(list.body).toContain('deploy script')
    expect(list.body).not.toContain(secret)
    const id = /action="\/account\/tokens\/(\d+)\/revoke"/.exec(list.body)?.[1]
    const revoked = await ui.post(`/account/tokens/${id}/revoke`, {})
    expect(revoked.statusCode).toBe(303)
    expect(
      (await app.inject({ method: 'GET', url: '/api/0/projects/', headers: bearer })).statusCode,
    ).toBe(401)
    expect((await ui.get('/account/tokens')).body).toContain('revoked')
  })

  it('lets a bearer token read pages without a session', async () => {
    const res = await app.inject({ method: 'GET', url: '/projects', headers: ADMIN })
    expect(res.statusCode).toBe(200)
    expect(res.body).toContain('admin token')
  })
})

describe('UI sign-in on two nodes sharing one database', () => {
  it('counts wrong passwords sent through one node on the other, and ends a session on both', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ingest-nodes-'))
    const path = join(dir, 'ingest.sqlite')
    const a = await testApp({ databasePath: path })
    const b = await testApp({ databasePath: path })
    try {
      await createUser(a, 'two@example.com')
      await createUser(a)
      const attempt = async (node: FastifyInstance, password: string) => {
        const form = await node.inject({ method: 'GET', url: '/login' })
        return node.inject({
          method: 'POST',
          url: '/login',
          headers: {
            ...FORM,
            cookie: `ingest_login_csrf=${cookieValue(form, 'ingest_login_csrf')}`,
          },
          payload: formBody({ email: 'two@example.com', password, _csrf: csrfOf(form.body) }),
        })
      }
      for (let i = 0; i < 10; i++) expect((await attempt(a, 'wrong')).statusCode).toBe(401)
      const blocked = await attempt(b, 'correct horse battery')
      expect(blocked.statusCode).toBe(429)
      // Sessions are rows read on every request (no cache): signing out on one node ends the
      // session on the other at once.
      const ui = await signIn(b, 'ui@example.com')
      expect(
        (await a.inject({ method: 'GET', url: '/projects', headers: { cookie: ui.cookie } }))
          .statusCode,
      ).toBe(200)
      await b.inject({
        method: 'POST',
        url: '/logout',
        headers: { ...FORM, cookie: ui.cookie },
        payload: formBody({ _csrf: ui.csrf }),
      })
      expect(
        (await a.inject({ method: 'GET', url: '/projects', headers: { cookie: ui.cookie } }))
          .statusCode,
      ).toBe(303)
    } finally {
      await b.close()
      await a.close()
      await rm(dir, { recursive: true, force: true })
    }
  })
})
