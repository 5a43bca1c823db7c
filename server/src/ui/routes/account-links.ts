import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { acceptInvite, completeReset, requestReset, usableLink } from '../../accounts/lifecycle.ts'
import { accountMailer } from '../../accounts/mailer.ts'
import { MIN_PASSWORD_LENGTH } from '../../accounts/passwords.ts'
import { ApiError } from '../../errors.ts'
import { PUBLIC } from '../../http/route-access.ts'
import type { AccountLinkKind } from '../../store/user-lifecycle-types.ts'
import type { UiDeps } from '../context.ts'
import { checkCsrf, csrfInput, LOGIN_CSRF_COOKIE, loginCsrfToken } from '../csrf.ts'
import { html, type SafeHtml } from '../html.ts'
import { layout, sendPage } from '../layout.ts'
import { startSession } from '../session-auth.ts'

const PasswordForm = z.object({
  password: z.string().max(1000).default(''),
  confirm: z.string().max(1000).default(''),
})

const ForgotForm = z.object({ email: z.string().trim().max(320).default('') })

/** Reset requests before back-off: per client address, and per e-mail address (mail bombing). */
const PER_ADDRESS = { free: 10 }
const PER_EMAIL = { free: 3 }

const secretOf = (params: unknown): string =>
  String((params as Record<string, unknown> | undefined)?.['secret'] ?? '')

const card = (title: string, inner: SafeHtml | string) =>
  html`<div class="login card"><h1>${title}</h1>${inner}</div>`

/**
 * The public pages of one-time links and the "forgot password" form: reached without signing in
 * (`access: PUBLIC`), their forms carry the double-submit token of the sign-in form.
 */
export async function accountLinkRoutes(app: FastifyInstance, deps: UiDeps): Promise<void> {
  const { services } = deps
  const { store, config } = services
  // Made here first, so background send failures reach the app's log; sends still in flight
  // finish before the app has closed.
  const mailer = accountMailer(services, app.log)
  app.addHook('onClose', () => mailer.idle())

  /** The page of a link that cannot be used (404 unknown, 410 used/revoked/expired). */
  const linkError = (reply: FastifyReply, err: ApiError) =>
    sendPage(
      reply,
      layout(
        undefined,
        'Link not usable',
        card(
          'This link cannot be used',
          html`<p>${err.message}</p><p><a href="/login">Sign in</a> · <a href="/forgot-password">Forgot your password?</a></p>`,
        ),
      ),
      err.status,
    )

  const passwordPage = (
    kind: AccountLinkKind,
    token: string,
    secret: string,
    email: string,
    error?: string,
  ) =>
    layout(
      undefined,
      kind === 'invite' ? 'Accept invitation' : 'Choose a new password',
      card(
        kind === 'invite' ? 'Welcome' : 'Choose a new password',
        html`<p class="muted">${kind === 'invite' ? 'Choose the password of your account' : 'New password for'} <b>${email}</b>.</p>
<form method="post" action="${kind === 'invite' ? '/accept-invite/' : '/reset-password/'}${secret}">${csrfInput(token)}
<input type="text" name="username" value="${email}" autocomplete="username" hidden>
<label for="password">Password (at least ${MIN_PASSWORD_LENGTH} characters)</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required autofocus>
<label for="confirm">Repeat it</label><input id="confirm" name="confirm" type="password" autocomplete="new-password" required>
<button class="primary" type="submit">${kind === 'invite' ? 'Create my account' : 'Set password'}</button></form>`,
      ),
      error === undefined ? undefined : { text: error, error: true },
    )

  for (const kind of ['invite', 'reset'] as const) {
    const path = kind === 'invite' ? '/accept-invite/:secret' : '/reset-password/:secret'

    app.get(path, { config: { access: PUBLIC } }, async (req, reply) => {
      const secret = secretOf(req.params)
      try {
        const link = await usableLink(services, kind, secret)
        const token = loginCsrfToken(req, reply, config)
        return sendPage(reply, passwordPage(kind, token, secret, link.email))
      } catch (err) {
        if (err instanceof ApiError && err.status < 500) return linkError(reply, err)
        throw err
      }
    })

    app.post(path, { config: { access: PUBLIC } }, async (req: FastifyRequest, reply) => {
      checkCsrf(req, req.cookies[LOGIN_CSRF_COOKIE])
      const secret = secretOf(req.params)
      const form = PasswordForm.safeParse(req.body ?? {})
      const { password, confirm } = form.success ? form.data : { password: '', confirm: '' }
      let email = ''
      try {
        email = (await usableLink(services, kind, secret)).email
        if (password !== confirm) throw new ApiError('bad_request', 'The passwords differ.')
        const user =
          kind === 'invite'
            ? await acceptInvite(services, secret, password)
            : await completeReset(services, secret, password)
        await startSession(store, req, reply, config, user)
        reply.clearCookie(LOGIN_CSRF_COOKIE, { path: '/' })
        return reply.redirect('/', 303)
      } catch (err) {
        if (!(err instanceof ApiError) || err.status >= 500) throw err
        if (err.status !== 400) return linkError(reply, err)
        const token = loginCsrfToken(req, reply, config)
        return sendPage(reply, passwordPage(kind, token, secret, email, err.message), 400)
      }
    })
  }

  const forgotPage = (token: string, note?: { text: string; error?: boolean }) => {
    const smtp = mailer.configured
    return layout(
      undefined,
      'Forgot password',
      card(
        'Forgot your password?',
        smtp
          ? html`<p class="muted">Enter your e-mail address: if it has an account, a link to choose a new password is mailed to it (valid for 1 hour).</p>
<form method="post" action="/forgot-password">${csrfInput(token)}
<label for="email">E-mail</label><input id="email" name="email" type="email" autocomplete="username" required autofocus>
<button class="primary" type="submit">Send the link</button></form><p><a href="/login">Back to sign in</a></p>`
          : html`<p>This server sends no e-mail (no SMTP server is configured). Ask an admin, or the operator can run <code>npm run reset-admin-password</code> on the server.</p><p><a href="/login">Back to sign in</a></p>`,
      ),
      note,
    )
  }

  app.get('/forgot-password', { config: { access: PUBLIC } }, async (req, reply) =>
    sendPage(reply, forgotPage(loginCsrfToken(req, reply, config))),
  )

  app.post('/forgot-password', { config: { access: PUBLIC } }, async (req, reply) => {
    checkCsrf(req, req.cookies[LOGIN_CSRF_COOKIE])
    const form = ForgotForm.safeParse(req.body ?? {})
    const email = form.success ? form.data.email : ''
    const keys = [
      [`reset-ip:${req.ip}`, PER_ADDRESS],
      [`reset-email:${email.toLowerCase()}`, PER_EMAIL],
    ] as const
    const token = loginCsrfToken(req, reply, config)
    const wait = await deps.throttle.retryAfter(keys)
    if (wait > 0) {
      reply.header('retry-after', String(wait))
      const text = `Too many reset requests. Try again in ${wait < 120 ? `${wait} s` : `${Math.ceil(wait / 60)} min`}.`
      return sendPage(reply, forgotPage(token, { text, error: true }), 429)
    }
    // Every request counts, found or not: the throttle must not tell the two apart either.
    await deps.throttle.fail(keys)
    await requestReset(services, email)
    return sendPage(
      reply,
      forgotPage(token, {
        text: 'If that address has an account, a link to choose a new password is on its way.',
      }),
    )
  })
}
