import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { hashPassword, verifyPassword } from '../../accounts/passwords.ts'
import { PUBLIC, SIGNED_IN } from '../../http/route-access.ts'
import type { UiDeps } from '../context.ts'
import { checkCsrf, csrfInput, LOGIN_CSRF_COOKIE, loginCsrfToken } from '../csrf.ts'
import { html } from '../html.ts'
import { layout, sendPage } from '../layout.ts'
import { endSession, readSession, startSession } from '../session-auth.ts'

const LoginForm = z.object({
  email: z.string().trim().max(320).default(''),
  password: z.string().max(1000).default(''),
  next: z.string().max(2000).optional(),
})

const SAME = 'http://same-origin.invalid'

/**
 * Only same-origin relative paths are followed after login: no `//evil`, `https:`, and no
 * `/\t/evil` either (browsers drop tabs and newlines inside URLs and read `\` as `/`, WHATWG URL
 * spec). The result is re-serialised by the URL parser, so it is ASCII and a valid header value.
 */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || !next.startsWith('/') || next.startsWith('//')) return '/'
  for (const ch of next) {
    const c = ch.charCodeAt(0)
    if (c <= 0x20 || c === 0x7f || ch === '\\') return '/'
  }
  let url: URL
  try {
    url = new URL(next, SAME)
  } catch {
    return '/'
  }
  if (url.origin !== SAME) return '/'
  return `${url.pathname}${url.search}${url.hash}`
}

/** Failures before back-off: per address and account, and per address over all accounts. */
const PER_ACCOUNT = { free: 10 }
const PER_ADDRESS = { free: 30 }

// A hash to verify against when the e-mail is unknown, so both paths cost one scrypt.
let dummyHash: Promise<string> | undefined

/** Login form, sign-in and sign-out. */
export async function authRoutes(app: FastifyInstance, deps: UiDeps): Promise<void> {
  const { store, config } = deps.services

  const loginPage = (token: string, next: string, email = '', error?: string) =>
    layout(
      undefined,
      'Sign in',
      html`<div class="login card"><h1>Sign in</h1>
<p class="muted">Error-ingest server</p>
<form method="post" action="/login">${csrfInput(token)}
<input type="hidden" name="next" value="${next}">
<label for="email">E-mail</label><input id="email" name="email" type="email" autocomplete="username" required value="${email}" autofocus>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button class="primary" type="submit">Sign in</button></form>
<p class="small"><a href="/forgot-password">Forgot your password?</a></p></div>`,
      error === undefined ? undefined : { text: error, error: true },
    )

  app.get('/login', { config: { access: PUBLIC } }, async (req, reply) => {
    const next = safeNext((req.query as Record<string, unknown>)['next'])
    if ((await readSession(store, req)) !== undefined) return reply.redirect(next, 303)
    return sendPage(reply, loginPage(loginCsrfToken(req, reply, config), next))
  })

  app.post('/login', { config: { access: PUBLIC } }, async (req, reply) => {
    checkCsrf(req, req.cookies[LOGIN_CSRF_COOKIE])
    const form = LoginForm.safeParse(req.body ?? {})
    const { email, password, next } = form.success ? form.data : { email: '', password: '' }
    const target = safeNext(next)
    const keys = [
      [`ip:${req.ip}|${email.toLowerCase()}`, PER_ACCOUNT],
      [`ip:${req.ip}`, PER_ADDRESS],
    ] as const
    const wait = await deps.throttle.retryAfter(keys)
    const token = loginCsrfToken(req, reply, config)
    if (wait > 0) {
      reply.header('retry-after', String(wait))
      const msg =
        wait < 120
          ? `Too many failed sign-ins. Try again in ${wait} s.`
          : `Too many failed sign-ins. Try again in ${Math.ceil(wait / 60)} min.`
      return sendPage(reply, loginPage(token, target, email, msg), 429)
    }
    const user = email === '' ? undefined : await store.findUserByEmail(email)
    dummyHash ??= hashPassword('not a real password')
    const ok = await verifyPassword(password, user?.passwordHash ?? (await dummyHash))
    if (user === undefined || !ok) {
      await deps.throttle.fail(keys)
      return sendPage(reply, loginPage(token, target, email, 'Wrong e-mail or password.'), 401)
    }
    await deps.throttle.succeed(keys)
    // The password was right, so saying why sign-in is refused tells nothing to a guesser.
    if (user.deactivatedAt !== null) {
      const msg = 'This account is deactivated. Ask an admin to reactivate it.'
      return sendPage(reply, loginPage(token, target, email, msg), 403)
    }
    // Sign-ins are rare: a good moment to drop sessions that expired (one indexed delete).
    await store.deleteExpiredSessions(Date.now())
    await startSession(store, req, reply, config, user)
    reply.clearCookie(LOGIN_CSRF_COOKIE, { path: '/' })
    return reply.redirect(target, 303)
  })

  app.post('/logout', { config: { access: SIGNED_IN } }, async (req, reply) => {
    await endSession(store, req, reply, config)
    return reply.redirect('/login', 303)
  })
}
