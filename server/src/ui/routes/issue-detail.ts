import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { notFound } from '../../errors.ts'
import { onIssue, onProject } from '../../http/route-access.ts'
import { parseInput, pathId } from '../../http-kit/validate.ts'
import type { TagDistribution } from '../../store/search-types.ts'
import type { Issue, StoredEvent } from '../../store/types.ts'
import { type BarColumn, barChart, foldIntoBuckets, rangeWindow } from '../chart.ts'
import { pageContext, type UiDeps } from '../context.ts'
import { eventBody } from '../event-view.ts'
import { count, isoTime, relTime, truncate } from '../format.ts'
import { html, type SafeHtml } from '../html.ts'
import { layout, type PageContext, postForm, projectUrl, sendPage } from '../layout.ts'
import { type IgnoreOptions, triage } from '../triage.ts'

const HOUR = 3_600_000

/**
 * Maps the frames of a stored event that were not mapped at ingest (its bundle came later, or
 * the project had none then), and marks those that still cannot be with the reason. Frames
 * mapped at ingest are left alone; the maps come from the resolver's cache.
 */
async function resolveForDisplay(
  deps: UiDeps,
  projectId: number,
  payload: unknown,
  log: { warn(obj: object, msg: string): void },
): Promise<void> {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return
  const resolver = deps.services.sourceMaps
  try {
    await resolver.resolveEvent(projectId, payload as Record<string, unknown>)
  } catch (err) {
    log.warn({ err, projectId }, 'source-map resolution for display failed')
  }
}
const DAY = 24 * HOUR

/** Chart periods: length and bucket size. */
export const PERIODS = {
  '24h': { span: 24 * HOUR, bucket: HOUR, label: '24 hours' },
  '14d': { span: 14 * DAY, bucket: DAY, label: '14 days' },
  '90d': { span: 90 * DAY, bucket: DAY, label: '90 days' },
} as const

const DetailQuery = z.object({
  event: z
    .string()
    .max(36)
    .transform((s) => s.replaceAll('-', '').toLowerCase())
    .optional(),
  period: z.enum(['24h', '14d', '90d']).default('14d'),
})

const ActionForm = z.object({
  action: z.enum(['resolve', 'ignore', 'unresolve', 'review']),
  /** Ignore for this many seconds. */
  for: z.coerce
    .number()
    .int()
    .min(60)
    .max(366 * 86_400)
    .optional(),
  /** Ignore until this many more events arrive. */
  count: z.coerce.number().int().min(1).max(1_000_000_000).optional(),
})

async function chart(deps: UiDeps, issueId: number, period: keyof typeof PERIODS, now: number) {
  const p = PERIODS[period]
  const window = rangeWindow(p, now)
  const counts = await deps.services.store.issueHistogram(issueId, window.since, p.bucket)
  const columns = foldIntoBuckets(
    window,
    p.bucket,
    counts,
    (b) => b.start,
    (start): BarColumn => ({ start, values: { events: 0 } }),
    (col, b) => {
      col.values['events'] = (col.values['events'] ?? 0) + b.count
    },
  ).buckets
  const series = [{ key: 'events', label: 'events', color: '#7b97e6' }]
  return barChart(columns, series, p.bucket)
}

function actions(ctx: PageContext, issue: Issue): SafeHtml {
  // Viewers cannot triage: no buttons that would only answer 403.
  if (!ctx.can.includes('project:triage')) return html``
  const url = `/issues/${issue.id}/action`
  const button = (action: string, label: string, primary = false) =>
    postForm(
      ctx,
      url,
      html`<button type="submit" name="action" value="${action}" class="${primary ? 'primary' : ''}">${label}</button>`,
      { className: 'inline' },
    )
  const ignoreFor = (seconds: number, label: string) =>
    postForm(
      ctx,
      url,
      html`<input type="hidden" name="action" value="ignore"><input type="hidden" name="for" value="${seconds}"><button type="submit">for ${label}</button>`,
    )
  const ignoreMenu = html`<details><summary class="button">Ignore ▾</summary><div class="menu">
${postForm(ctx, url, html`<input type="hidden" name="action" value="ignore"><button type="submit">Until I change it</button>`)}
${ignoreFor(3600, '1 hour')}${ignoreFor(86_400, '24 hours')}${ignoreFor(7 * 86_400, '7 days')}
${postForm(ctx, url, html`<input type="hidden" name="action" value="ignore">until <input type="number" name="count" min="1" value="100" aria-label="more events"> more events <button type="submit">Ignore</button>`)}
</div></details>`
  return html`<div class="actions">
${issue.status === 'resolved' ? button('unresolve', 'Unresolve') : button('resolve', 'Resolve', true)}
${issue.status === 'ignored' ? button('unresolve', 'Stop ignoring') : ignoreMenu}
${issue.forReview ? button('review', 'Mark reviewed') : ''}</div>`
}

/** How long an ignored issue stays ignored. */
function ignoreNote(issue: Issue): SafeHtml {
  if (issue.status !== 'ignored') return html``
  const parts: string[] = []
  if (issue.ignoreUntil !== null) parts.push(`until ${isoTime(issue.ignoreUntil)}`)
  if (issue.ignoreUntilSeen !== null)
    parts.push(`until ${count(issue.ignoreUntilSeen - issue.timesSeen)} more events`)
  return parts.length === 0
    ? html` <span class="small muted">until changed</span>`
    : html` <span class="small muted">${parts.join(' or ')}</span>`
}

function eventNav(
  issue: Issue,
  event: StoredEvent,
  n: { newer?: string; older?: string; newest?: string; oldest?: string },
  period: string,
): SafeHtml {
  const link = (id: string | undefined, label: string, rel: string) =>
    id === undefined || id === event.eventId
      ? html`<span class="button muted" aria-disabled="true">${label}</span>`
      : html`<a class="button" rel="${rel}" href="/issues/${issue.id}?event=${id}&period=${period}">${label}</a>`
  return html`<div class="spread"><div><b>Event</b> <span class="mono">${event.eventId}</span>
<span class="muted small">received ${isoTime(event.received)} (${relTime(event.received)})</span></div>
<div class="actions">${link(n.oldest, '« Oldest', 'first')}${link(n.older, '‹ Older', 'prev')}${link(n.newer, 'Newer ›', 'next')}${link(n.newest, 'Newest »', 'last')}</div></div>`
}

/** The issue page: summary, chart, actions and one event at a time. */
/** Top values shown per tag key on the issue page. */
const TOP_TAG_VALUES = 5

/** Per tag key, the top values with their share of the events that carried the key. */
function tagCard(issue: Issue, tags: TagDistribution[]): SafeHtml {
  if (tags.length === 0)
    return html`<div class="card"><b>Tags</b><p class="muted small">No tags.</p></div>`
  const rows = tags.map((t) => {
    const values = t.top.map((v) => {
      const share = t.total === 0 ? 0 : Math.round((v.count / t.total) * 100)
      const search = `${t.key}:"${v.value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`
      return html`<li><a href="${projectUrl(issue.projectId, 'issues')}?query=${encodeURIComponent(search)}">${truncate(v.value, 80)}</a>
<span class="muted small">${share} % · ${count(v.count)}</span><meter min="0" max="100" value="${share}"></meter></li>`
    })
    const more =
      t.distinct > t.top.length
        ? html`<li class="muted small">${count(t.distinct - t.top.length)} more values</li>`
        : ''
    return html`<div class="tag-dist"><b>${t.key}</b><ul>${values}${more}</ul></div>`
  })
  return html`<div class="card"><b>Tags</b><div class="tag-grid">${rows}</div></div>`
}

export async function issueDetailRoutes(app: FastifyInstance, deps: UiDeps): Promise<void> {
  const { store } = deps.services
  const findIssue = async (params: unknown) => {
    const issue = await store.getIssue(pathId(params, 'issueId'))
    if (issue === undefined) throw notFound('issue')
    return issue
  }

  app.get(
    '/issues/:issueId',
    { config: { access: onIssue('project:read') } },
    async (req, reply) => {
      const q = parseInput(DetailQuery, req.query, 'query')
      const issueId = pathId(req.params, 'issueId')
      const now = Date.now()
      // The page's counter reads, asked together: on PostgreSQL they wait for one fold of the
      // pending counters (store/postgres/counter-deltas.ts), not one each.
      const [issue, svg, tags] = await Promise.all([
        findIssue(req.params),
        chart(deps, issueId, q.period, now),
        store.tagDistribution(issueId, TOP_TAG_VALUES),
      ])
      const project = await store.getProject(issue.projectId)
      const ctx = await pageContext(deps, req, 'issues', project)
      let event: StoredEvent | undefined
      if (q.event !== undefined) {
        event = await store.getEvent(issue.projectId, q.event)
        if (event?.issueId !== issue.id) throw notFound('event')
      } else {
        event = (await store.listIssueEvents(issue.id, { limit: 1 })).events[0]
      }
      const neighbours =
        event === undefined ? {} : await store.eventNeighbours(issue.id, event.eventId)
      let payload: unknown = {}
      try {
        payload = event === undefined ? {} : JSON.parse(event.payload)
      } catch {
        payload = {}
      }
      // An event stored before its source maps were uploaded is resolved for display now
      // (its issue keeps the grouping it got at ingest: docs/source-maps.md).
      await resolveForDisplay(deps, issue.projectId, payload, req.log)
      const periodLinks = Object.entries(PERIODS).map(([id, p]) =>
        id === q.period
          ? html`<b>${p.label}</b>`
          : html`<a href="/issues/${issue.id}?period=${id}${event === undefined ? '' : `&event=${event.eventId}`}">${p.label}</a>`,
      )
      const body = html`<div data-live-issue="${issue.id}" data-project="${issue.projectId}"></div>
<div class="flash" id="new-events" hidden><span data-count>0</span> new event(s) arrived. <a href="/issues/${issue.id}">Show the newest</a></div>
<p class="small"><a href="${projectUrl(issue.projectId, 'issues')}">« ${project?.name ?? 'Issues'}</a></p>
<div class="spread"><div><h1>${issue.title}</h1><div class="mono muted break">${issue.culprit}</div>
<p><span class="badge ${issue.level}">${issue.level}</span> <span class="badge ${issue.status}">${issue.status}</span>
${issue.forReview ? html` <span class="badge review">for review</span>` : ''}${ignoreNote(issue)}</p></div>
${actions(ctx, issue)}</div>
<div class="stats"><div><b>${count(issue.timesSeen)}</b><span>events</span></div>
<div><b title="${isoTime(issue.firstSeen)}">${relTime(issue.firstSeen, now)}</b><span>first seen</span></div>
<div><b title="${isoTime(issue.lastSeen)}">${relTime(issue.lastSeen, now)}</b><span>last seen</span></div>
<div><b>${count(issue.users)}</b><span>users affected</span></div></div>
<div class="card"><div class="spread"><b>Events over time</b><span class="row small">${periodLinks}</span></div>${svg}</div>
${tagCard(issue, tags)}
<div class="card">${
        event === undefined
          ? html`<p class="muted">No events stored for this issue.</p>`
          : html`${eventNav(issue, event, neighbours, q.period)}${eventBody(payload, event.component)}`
      }</div>`
      return sendPage(reply, layout(ctx, issue.title, body))
    },
  )

  // The link alerts carry (`alerts/message.ts` issueUrl): same page, project in the path.
  app.get(
    '/projects/:projectId/issues/:issueId',
    { config: { access: onProject('project:read') } },
    async (req, reply) => {
      const issue = await findIssue(req.params)
      // Another project's issue answers exactly as a missing one (no existence probe).
      if (issue.projectId !== pathId(req.params, 'projectId')) throw notFound('issue')
      return reply.redirect(`/issues/${issue.id}`, 303)
    },
  )

  app.post(
    '/issues/:issueId/action',
    { config: { access: onIssue('project:triage') } },
    async (req, reply) => {
      const issue = await findIssue(req.params)
      const form = parseInput(ActionForm, req.body, 'action')
      const opts: IgnoreOptions = {}
      if (form.for !== undefined) opts.forMs = form.for * 1000
      if (form.count !== undefined) opts.untilCount = form.count
      await triage(deps.services).act(issue.projectId, issue.id, form.action, opts)
      return reply.redirect(`/issues/${issue.id}`, 303)
    },
  )
}
