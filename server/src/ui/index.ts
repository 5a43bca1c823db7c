import cookie from '@fastify/cookie'
import formbody from '@fastify/formbody'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError, errorStatus } from '../errors.ts'
import { isPublic, PUBLIC } from '../http/route-access.ts'
import { principalResolver } from '../http-kit/principal.ts'
import type { Services } from '../services.ts'
import { TOKEN_SCOPES } from '../store/team-types.ts'
import { CLIENT_JS } from './client-script.ts'
import { type UiDeps, type UiViewer, viewerOf } from './context.ts'
import { checkCsrf } from './csrf.ts'
import { html } from './html.ts'
import { layout, sendPage } from './layout.ts'
import { liveRoutes } from './live.ts'
import { LoginThrottle } from './login-throttle.ts'
import { accountLinkRoutes } from './routes/account-links.ts'
import { auditLogRoutes } from './routes/audit-log.ts'
import { authRoutes } from './routes/auth.ts'
import { cronRoutes } from './routes/crons.ts'
import { issueDetailRoutes } from './routes/issue-detail.ts'
import { issueListRoutes } from './routes/issues.ts'
import { outcomeRoutes } from './routes/outcomes.ts'
import { projectRoutes } from './routes/projects.ts'
import { releaseRoutes } from './routes/releases.ts'
import { settingsRoutes } from './routes/settings.ts'
import { teamPageRoutes } from './routes/teams.ts'
import { tokenRoutes } from './routes/tokens.ts'
import { userAdminRoutes } from './routes/users.ts'
import { readSession } from './session-auth.ts'
import { CSS } from './style.ts'

/**
 * Pages may load only our own script and stylesheet: even if some event text slipped past
 * escaping, a browser would refuse to run it.
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ')

/** Resolves the viewer from the session cookie, or from a bearer token (scripts, tests). */
function viewerResolver(deps: UiDeps) {
  const { store, config } = deps.services
  const bearer = principalResolver(store, config.adminToken, [])
  return async (req: FastifyRequest): Promise<UiViewer | undefined> => {
    if (/^bearer\s/i.test(req.headers.authorization ?? '')) {
      const p = await bearer(req)
      const user = p.userId === null ? undefined : await store.getUser(p.userId)
      return {
        userId: p.userId,
        isAdmin: p.isAdmin,
        label: user?.email ?? 'admin token',
        principal: p,
      }
    }
    const session = await readSession(store, req)
    if (session === undefined) return undefined
    return {
      userId: session.userId,
      isAdmin: session.user.isAdmin,
      label: session.user.email,
      session,
      principal: {
        userId: session.userId,
        isAdmin: session.user.isAdmin,
        via: 'session',
        scopes: TOKEN_SCOPES,
      },
    }
  }
}

/** Page loads are sent to the login form; the page script's fetches and streams get a 401. */
function wantsHtml(req: FastifyRequest): boolean {
  if (req.method !== 'GET' || req.headers['x-ui-fragment'] !== undefined) return false
  return !(req.headers.accept ?? 'text/html').startsWith('text/event-stream')
}

/** Renders errors of UI routes as HTML pages (the API keeps its JSON bodies). */
function errorPage(err: FastifyError | ApiError, req: FastifyRequest, reply: FastifyReply) {
  const status = errorStatus(err)
  if (status >= 500) req.log.error({ err }, 'ui error')
  const text = status >= 500 ? 'Something went wrong on our side; it has been logged.' : err.message
  const ctx =
    req.ui === undefined
      ? undefined
      : {
          who: req.ui.label,
          csrf: req.ui.session?.csrfToken ?? '',
          session: req.ui.session !== undefined,
          projects: [],
          section: 'projects' as const,
          can: [],
        }
  const body = html`<div class="card"><h1>${status === 404 ? 'Not found' : `Error ${status}`}</h1>
<p>${text}</p><p><a href="/projects">Back to projects</a></p></div>`
  return sendPage(
    reply.headers(err instanceof ApiError ? err.headers : {}),
    layout(ctx, `Error ${status}`, body),
    status,
  )
}

/**
 * The web UI: server-rendered pages, the live-update stream and the two static files. Every
 * route needs a signed-in user or a token except the login form and the static files. The
 * JSON API accepts the UI's session cookie through `sessionPrincipalSource`, which the
 * composition root passes to `apiRoutes`.
 */
export async function webUi(app: FastifyInstance, services: Services): Promise<void> {
  const deps: UiDeps = { services, throttle: new LoginThrottle(services.store) }
  await app.register(async (scope) => {
    await scope.register(cookie)
    await scope.register(formbody)
    const resolveViewer = viewerResolver(deps)
    scope.setErrorHandler(errorPage)

    scope.addHook('onRequest', async (req, reply) => {
      if (isPublic(req)) return
      const viewer = await resolveViewer(req)
      if (viewer !== undefined) {
        req.ui = viewer
        req.principal = viewer.principal
        return
      }
      if (wantsHtml(req)) {
        const next = encodeURIComponent(req.url)
        return reply.redirect(`/login?next=${next}`, 303)
      }
      throw new ApiError('unauthorized', 'Sign in first.')
    })
    // Every state-changing UI request made through a browser session carries the CSRF token.
    scope.addHook('preHandler', async (req) => {
      if (req.method === 'GET' || req.method === 'HEAD') return
      if (isPublic(req)) return
      const viewer = viewerOf(req)
      if (viewer.session !== undefined) checkCsrf(req, viewer.session.csrfToken)
    })
    scope.addHook('onSend', async (_req, reply, payload) => {
      reply.header('x-content-type-options', 'nosniff')
      reply.header('referrer-policy', 'same-origin')
      if (String(reply.getHeader('content-type') ?? '').startsWith('text/html')) {
        reply.header('content-security-policy', CSP)
        reply.header('x-frame-options', 'DENY')
        reply.header('cache-control', 'no-store')
      }
      return payload
    })

    const asset =
      (body: string, type: string) => async (_req: FastifyRequest, reply: FastifyReply) =>
        reply.type(type).header('cache-control', 'public, max-age=300').send(body)
    scope.get(
      '/ui/static/app.css',
      { config: { access: PUBLIC } },
      asset(CSS, 'text/css; charset=utf-8'),
    )
    scope.get(
      '/ui/static/app.js',
      { config: { access: PUBLIC } },
      asset(CLIENT_JS, 'text/javascript; charset=utf-8'),
    )

    await authRoutes(scope, deps)
    await projectRoutes(scope, deps)
    await issueListRoutes(scope, deps)
    await issueDetailRoutes(scope, deps)
    await tokenRoutes(scope, deps)
    await releaseRoutes(scope, deps)
    await cronRoutes(scope, deps)
    await outcomeRoutes(scope, deps)
    await settingsRoutes(scope, deps)
    await teamPageRoutes(scope, deps)
    await liveRoutes(scope, deps)
    await accountLinkRoutes(scope, deps)
    await userAdminRoutes(scope, deps)
    await auditLogRoutes(scope, deps)
  })
}
