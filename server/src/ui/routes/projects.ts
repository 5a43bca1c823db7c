import type { FastifyInstance } from 'fastify'
import { principalOf, visibleProjects } from '../../accounts/access.ts'
import { CreateProject, createProject } from '../../api/projects.ts'
import { actorOf, recordAudit } from '../../audit/record.ts'
import { ON_NEW_PROJECT_TEAM, onProject, SIGNED_IN } from '../../http/route-access.ts'
import { keyJson } from '../../http-kit/format.ts'
import { parseInput } from '../../http-kit/validate.ts'
import { DEFAULT_TEAM_ID } from '../../store/team-types.ts'
import type { ProjectKey } from '../../store/types.ts'
import { pageContext, projectParam, type UiDeps, viewerOf } from '../context.ts'
import { isoTime } from '../format.ts'
import { html, type SafeHtml } from '../html.ts'
import { layout, postForm, projectUrl, sendPage } from '../layout.ts'

/** The SDK set-up snippets for a DSN (every one with tracing off: no transactions stored). */
export function snippets(
  dsn: string,
): { id: string; title: string; note?: string; code: string }[] {
  return [
    {
      id: 'node',
      title: 'Node.js (@sentry/node)',
      note: 'Initialise the SDK before anything else is imported: put Sentry.init in its own file and import it first (or start Node with --import ./instrument.mjs). Otherwise most auto-instrumentation is silently lost.',
      code: `// instrument.mjs — imported before anything else
import * as Sentry from '@sentry/node'

Sentry.init({
  dsn: '${dsn}',
  release: 'my-app@1.0.0',
  environment: 'production',
  tracesSampleRate: 0,
})

// app.mjs — first line:
//   import './instrument.mjs'
// or run: node --import ./instrument.mjs app.mjs`,
    },
    {
      id: 'browser',
      title: 'Browser (@sentry/browser)',
      code: `import * as Sentry from '@sentry/browser'

Sentry.init({
  dsn: '${dsn}',
  release: 'my-app@1.0.0',
  environment: 'production',
  tracesSampleRate: 0,
})`,
    },
    {
      id: 'python',
      title: 'Python (sentry-sdk)',
      code: `import sentry_sdk

sentry_sdk.init(
    dsn="${dsn}",
    release="my-app@1.0.0",
    environment="production",
    traces_sample_rate=0,
)`,
    },
    {
      id: 'rust',
      title: 'Rust (sentry crate)',
      note: 'Hold the guard for the life of the program: dropping it flushes what is still queued.',
      code: `let _guard = sentry::init((
    "${dsn}",
    sentry::ClientOptions {
        release: sentry::release_name!(),
        environment: Some("production".into()),
        traces_sample_rate: 0.0,
        ..Default::default()
    },
));`,
    },
  ]
}

/**
 * The commands that upload a JavaScript build's source maps with stock sentry-cli or a bundler
 * plugin: `SENTRY_URL` this server, the org the project's team slug, the project its slug,
 * and an API token of a user who administers the team (docs/source-maps.md).
 */
export function sourceMapCommands(baseUrl: string, org: string, project: string): string {
  return `# An API token (Account → API tokens, scope "admin") of a user who is admin of this team
export SENTRY_AUTH_TOKEN=<token>
export SENTRY_URL=${baseUrl}
export SENTRY_ORG=${org}
export SENTRY_PROJECT=${project}

# After each production build (dist/ holds the .js and .js.map files):
npx @sentry/cli sourcemaps inject ./dist
npx @sentry/cli sourcemaps upload ./dist

# Or let the bundler do both, e.g. esbuild (webpack and vite plugins take the same options):
#   import { sentryEsbuildPlugin } from '@sentry/esbuild-plugin'
#   plugins: [sentryEsbuildPlugin({ url: '${baseUrl}', org: '${org}', project: '${project}',
#                                   authToken: process.env.SENTRY_AUTH_TOKEN })]`
}

/** A DSN field with a copy button. */
export function dsnField(id: string, dsn: string): SafeHtml {
  return html`<div class="dsn"><input id="${id}" type="text" readonly value="${dsn}" aria-label="DSN">
<button type="button" data-copy="${id}">Copy</button></div>`
}

const defaultKey = (keys: ProjectKey[]) =>
  keys.find((k) => k.component === null && k.revokedAt === null) ??
  keys.find((k) => k.revokedAt === null)

/** Project list, creation, and the set-up page with DSN and SDK snippets. */
export async function projectRoutes(app: FastifyInstance, deps: UiDeps): Promise<void> {
  const { store } = deps.services
  const dsnOf = (k: ProjectKey) => keyJson(k, deps.services.baseUrl()).dsn

  app.get('/', { config: { access: SIGNED_IN } }, async (_req, reply) => {
    const projects = await visibleProjects(store, principalOf(_req))
    const first = projects[0]
    return reply.redirect(first === undefined ? '/projects' : projectUrl(first.id, 'issues'), 303)
  })

  app.get('/projects', { config: { access: SIGNED_IN } }, async (req, reply) => {
    const ctx = await pageContext(deps, req, 'projects')
    const rows = await Promise.all(
      ctx.projects.map(async (p) => {
        const key = defaultKey(await store.listKeys(p.id))
        return html`<tr><td><a href="${projectUrl(p.id, 'issues')}"><b>${p.name}</b></a><div class="muted small">${p.slug}</div></td>
<td>${key === undefined ? html`<span class="muted">no active key</span>` : dsnField(`dsn-${p.id}`, dsnOf(key))}</td>
<td class="nowrap small muted">${isoTime(p.createdAt)}</td>
<td class="nowrap"><a href="${projectUrl(p.id, 'setup')}">Set up an SDK</a></td></tr>`
      }),
    )
    const body = html`<div class="spread"><h1>Projects</h1>
${postForm(ctx, '/projects', html`<input type="text" name="name" placeholder="New project name" required maxlength="100" aria-label="Project name"> <button class="primary" type="submit">Create project</button>`, { className: 'row' })}</div>
<div class="table-wrap"><table><thead><tr><th>Project</th><th>DSN</th><th>Created</th><th></th></tr></thead>
<tbody>${rows.length === 0 ? html`<tr><td colspan="4" class="empty">No projects yet.</td></tr>` : rows}</tbody></table></div>`
    return sendPage(reply, layout(ctx, 'Projects', body))
  })

  app.post('/projects', { config: { access: ON_NEW_PROJECT_TEAM } }, async (req, reply) => {
    const { name } = parseInput(CreateProject, req.body, 'project')
    const { project, key } = await createProject(store, name, req.accessTeamId ?? DEFAULT_TEAM_ID)
    await recordAudit(store, actorOf(viewerOf(req)), 'project.create', {
      projectId: project.id,
      target: `project:${project.id}`,
      details: { name: project.name, key: key.id },
    })
    return reply.redirect(`${projectUrl(project.id, 'setup')}?created=1`, 303)
  })

  app.get(
    '/projects/:projectId',
    { config: { access: onProject('project:read') } },
    async (req, reply) => {
      const project = await projectParam(deps, req.params)
      return reply.redirect(projectUrl(project.id, 'issues'), 303)
    },
  )

  app.get(
    '/projects/:projectId/setup',
    { config: { access: onProject('project:read') } },
    async (req, reply) => {
      const project = await projectParam(deps, req.params)
      const ctx = await pageContext(deps, req, 'setup', project)
      const key = defaultKey(await store.listKeys(project.id))
      const created = (req.query as Record<string, unknown>)['created'] === '1'
      const dsn = key === undefined ? '' : dsnOf(key)
      const team = await store.getTeam(project.teamId)
      const body = html`<h1>Set up ${project.name}</h1>
<div class="card"><h2>DSN</h2>
<p class="muted">The only configuration an SDK needs. More keys (component DSNs) are under <a href="${projectUrl(project.id, 'settings')}">Settings</a>.</p>
${key === undefined ? html`<p>This project has no active key.</p>` : dsnField('dsn', dsn)}</div>
<div class="card snippets"><h2>SDK snippets</h2>
<p class="muted">Tracing stays off (<code>traces_sample_rate</code> 0): this server stores errors, sessions and check-ins, not transactions.</p>
${snippets(dsn).map(
  (
    s,
  ) => html`<div class="snippet-head"><h3>${s.title}</h3><button type="button" data-copy="snippet-${s.id}">Copy</button></div>
${s.note === undefined ? '' : html`<p class="small">${s.note}</p>`}<pre id="snippet-${s.id}">${s.code}</pre>`,
)}</div>
<div class="card snippets" id="source-maps"><div class="snippet-head"><h2>Source maps (JavaScript)</h2><button type="button" data-copy="snippet-sourcemaps">Copy</button></div>
<p class="muted">Upload each build's source maps with the stock <code>sentry-cli</code> (2.x or 3.x) or a bundler plugin: minified browser frames are then shown and grouped by their original function, file and line. An event sent before its upload is shown resolved once the maps arrive.</p>
<pre id="snippet-sourcemaps">${sourceMapCommands(deps.services.baseUrl(), team?.slug ?? 'default', project.slug)}</pre></div>`
      return sendPage(
        reply,
        layout(
          ctx,
          `Set up ${project.name}`,
          body,
          created ? { text: `Project “${project.name}” created.` } : undefined,
        ),
      )
    },
  )
}
