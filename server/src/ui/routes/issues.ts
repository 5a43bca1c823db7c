import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { Cursor } from '../../api/cursor.ts'
import { onProject } from '../../http/route-access.ts'
import { parseInput } from '../../http-kit/validate.ts'
import { ISSUE_COUNT_CAP, type Issue, type Project } from '../../store/types.ts'
import { pageContext, projectParam, type UiDeps } from '../context.ts'
import { count, relTime, truncate } from '../format.ts'
import { html, type SafeHtml } from '../html.ts'
import { layout, type PageContext, postForm, projectUrl, sendPage } from '../layout.ts'
import { TABS, type Tab, triage } from '../triage.ts'

/** Issues per page of the list. */
export const PAGE_SIZE = 50

/** Query of the issue list page and its live fragment. */
export const ListQuery = z.object({
  tab: z.enum(['review', 'unresolved', 'resolved', 'ignored']).default('unresolved'),
  query: z.string().trim().max(200).default(''),
  environment: z.string().max(256).default(''),
  release: z.string().max(256).default(''),
  component: z.string().max(64).default(''),
  cursor: Cursor.optional(),
})
type ListQuery = z.infer<typeof ListQuery>

/** The list URL for a query (empty values left out). */
export function listUrl(projectId: number, q: Partial<ListQuery>, path = 'issues'): string {
  const params = new URLSearchParams()
  for (const [k, v] of Object.entries(q)) if (typeof v === 'string' && v !== '') params.set(k, v)
  const s = params.toString()
  return `${projectUrl(projectId, path)}${s === '' ? '' : `?${s}`}`
}

/** A tab's count: the store stops counting past the cap, so more reads "10,000+". */
function tabCount(n: number): string {
  return n > ISSUE_COUNT_CAP ? `${count(ISSUE_COUNT_CAP)}+` : count(n)
}

/** The issue rows (the part the live refresh replaces). */
function issueRows(
  issues: Issue[],
  q: ListQuery,
  project: Project,
  next: string | undefined,
  now: number,
): SafeHtml {
  const rows = issues.map(
    (i) => html`<tr data-issue="${i.id}">
<td><input type="checkbox" name="issue" value="${i.id}" aria-label="Select issue ${i.id}"></td>
<td class="title"><a href="/issues/${i.id}">${truncate(i.title, 160)}</a>
<div class="culprit">${truncate(i.culprit, 200)}</div></td>
<td><span class="badge ${i.level}">${i.level}</span></td>
<td class="num">${count(i.timesSeen)}</td>
<td class="nowrap small" title="${new Date(i.lastSeen).toISOString()}">${relTime(i.lastSeen, now)}</td>
<td class="nowrap small muted" title="${new Date(i.firstSeen).toISOString()}">${relTime(i.firstSeen, now)}</td></tr>`,
  )
  const empty = html`<tr><td colspan="6" class="empty">No issues match.</td></tr>`
  const pager = html`<div class="pager">${
    q.cursor === undefined
      ? ''
      : html`<a class="button" href="${listUrl(project.id, { ...q, cursor: '' })}">« First page</a>`
  }${next === undefined ? '' : html`<a class="button" href="${listUrl(project.id, { ...q, cursor: next })}" rel="next">Next page »</a>`}</div>`
  return html`<table class="issues"><thead><tr><th><input type="checkbox" data-select-all aria-label="Select all"></th>
<th>Issue</th><th>Level</th><th class="num">Events</th><th>Last seen</th><th>First seen</th></tr></thead>
<tbody>${rows.length === 0 ? empty : rows}</tbody></table>${pager}`
}

/** One page of issues for a query. */
async function loadPage(deps: UiDeps, project: Project, q: ListQuery) {
  return triage(deps.services).listIssues(project.id, q.tab, {
    filter: {
      query: q.query,
      environment: q.environment,
      release: q.release,
      component: q.component,
    },
    limit: PAGE_SIZE,
    cursor: q.cursor,
  })
}

function filterForm(
  project: Project,
  q: ListQuery,
  facets: { environments: string[]; releases: string[]; components: string[] },
): SafeHtml {
  const select = (
    name: 'environment' | 'release' | 'component',
    label: string,
    values: string[],
  ) => {
    const all = q[name] !== '' && !values.includes(q[name]) ? [q[name], ...values] : values
    return html`<select name="${name}" aria-label="${label}"><option value="">All ${label}s</option>${all.map(
      (v) =>
        html`<option value="${v}"${v === q[name] ? html` selected` : ''}>${truncate(v, 60)}</option>`,
    )}</select>`
  }
  return html`<form class="filters" method="get" action="${projectUrl(project.id, 'issues')}">
<input type="hidden" name="tab" value="${q.tab}">
<input type="search" name="query" value="${q.query}" placeholder="Search titles and culprits" aria-label="Search">
${select('environment', 'environment', facets.environments)}
${select('release', 'release', facets.releases)}
${select('component', 'component', facets.components)}
<button type="submit">Filter</button>
${q.query !== '' || q.environment !== '' || q.release !== '' || q.component !== '' ? html`<a href="${listUrl(project.id, { tab: q.tab })}">Clear</a>` : ''}
</form>`
}

function bulkBar(ctx: PageContext, tab: Tab): SafeHtml {
  // Viewers cannot triage: no buttons that would only answer 403.
  if (!ctx.can.includes('project:triage')) return html``
  const b = (action: string, label: string) =>
    html`<button type="submit" name="action" value="${action}">${label}</button>`
  return html`<div class="bulk"><span class="muted small">Selected:</span>
${tab !== 'resolved' ? b('resolve', 'Resolve') : ''}
${tab !== 'ignored' ? b('ignore', 'Ignore') : ''}
${tab === 'review' ? b('review', 'Mark reviewed') : ''}
${tab === 'resolved' || tab === 'ignored' ? b('unresolve', 'Unresolve') : ''}
<span class="muted small">${ctx.session ? '' : '(token access)'}</span></div>`
}

const BulkForm = z.object({
  action: z.enum(['resolve', 'ignore', 'unresolve', 'review']),
  issue: z.union([z.string(), z.array(z.string())]).optional(),
  back: z.string().max(2000).optional(),
})

/** The issue list with tabs, filters, bulk actions, paging and the live fragment. */
export async function issueListRoutes(app: FastifyInstance, deps: UiDeps): Promise<void> {
  const { store } = deps.services

  app.get(
    '/projects/:projectId/issues',
    { config: { access: onProject('project:read') } },
    async (req, reply) => {
      const project = await projectParam(deps, req.params)
      const q = parseInput(ListQuery, req.query, 'query')
      const now = Date.now()
      const [ctx, page, counts, facets] = await Promise.all([
        pageContext(deps, req, 'issues', project),
        loadPage(deps, project, q),
        triage(deps.services).tabCounts(project.id),
        store.projectFacets(project.id),
      ])
      const tabs = html`<div class="tabs">${TABS.map(
        (t) =>
          html`<a href="${listUrl(project.id, { ...q, tab: t.id, cursor: '' })}" class="${t.id === q.tab ? 'on' : ''}" data-tab="${t.id}">${t.label}<span class="count">${tabCount(counts[t.id])}</span></a>`,
      )}</div>`
      const fragment = listUrl(project.id, q, 'issues/fragment')
      const body = html`<div class="spread"><h1>${project.name}: issues</h1><span class="live-note" data-live-note>Live updates</span></div>
${filterForm(project, q, facets)}${tabs}
${postForm(
  ctx,
  `/projects/${project.id}/issues/bulk`,
  html`<input type="hidden" name="back" value="${req.url}">${bulkBar(ctx, q.tab)}
<div id="issue-list" data-project="${project.id}" data-fragment="${fragment}">${issueRows(page.issues, q, project, page.next, now)}</div>`,
  { className: 'table-wrap', id: 'bulk-form' },
)}`
      return sendPage(reply, layout(ctx, `${project.name} issues`, body))
    },
  )

  app.get(
    '/projects/:projectId/issues/fragment',
    { config: { access: onProject('project:read') } },
    async (req, reply) => {
      const project = await projectParam(deps, req.params)
      const q = parseInput(ListQuery, req.query, 'query')
      const [page, counts] = await Promise.all([
        loadPage(deps, project, q),
        triage(deps.services).tabCounts(project.id),
      ])
      // The page script updates the tab counts from this header.
      return reply
        .header('x-tab-counts', JSON.stringify(counts))
        .type('text/html; charset=utf-8')
        .send(issueRows(page.issues, q, project, page.next, Date.now()).value)
    },
  )

  app.post(
    '/projects/:projectId/issues/bulk',
    { config: { access: onProject('project:triage') } },
    async (req, reply) => {
      const project = await projectParam(deps, req.params)
      const form = parseInput(BulkForm, req.body, 'bulk action')
      const raw =
        form.issue === undefined ? [] : Array.isArray(form.issue) ? form.issue : [form.issue]
      const ids = raw.filter((s) => /^\d{1,15}$/.test(s)).map(Number)
      await triage(deps.services).bulk(project.id, ids, form.action)
      const back =
        form.back?.startsWith(`/projects/${project.id}/issues`) === true
          ? form.back
          : projectUrl(project.id, 'issues')
      return reply.redirect(back, 303)
    },
  )
}
