import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { monitorJson } from '../../api/monitors.ts'
import { notFound } from '../../errors.ts'
import { onProject } from '../../http/route-access.ts'
import { parseInput } from '../../http-kit/validate.ts'
import type { Schedule } from '../../schedule/schedule.ts'
import type { CheckInRecord, Monitor } from '../../store/monitor-types.ts'
import { pageContext, projectParam, type UiDeps } from '../context.ts'
import { isoTime, relTime } from '../format.ts'
import { html, type SafeHtml } from '../html.ts'
import { layout, projectUrl, sendPage } from '../layout.ts'

/** Words for run and monitor states (`timeout` is what users call overrunning). */
const STATUS_WORDS: Record<string, string> = {
  ok: 'ok',
  error: 'error',
  missed: 'missed',
  timeout: 'overrunning',
  in_progress: 'in progress',
  active: 'waiting for first run',
}

const badgeClass = (s: string) =>
  s === 'ok'
    ? 'ok'
    : s === 'timeout'
      ? 'overrunning'
      : s === 'missed'
        ? 'missed'
        : s === 'error'
          ? 'error'
          : ''

/** A schedule in words: the crontab line, or "every N units". */
export function scheduleText(s: Schedule): string {
  return s.type === 'crontab' ? s.value : `every ${s.value} ${s.unit}${s.value === 1 ? '' : 's'}`
}

/** A time in the monitor's own time zone (UTC when the zone is unknown). */
export function zoned(ms: number, timezone: string): string {
  const opts: Intl.DateTimeFormatOptions = {
    dateStyle: 'medium',
    timeStyle: 'short',
    hourCycle: 'h23',
  }
  try {
    return `${new Intl.DateTimeFormat('en-GB', { ...opts, timeZone: timezone }).format(ms)} ${timezone}`
  } catch {
    return isoTime(ms)
  }
}

function timeline(runs: CheckInRecord[]): SafeHtml {
  if (runs.length === 0) return html`<span class="muted small">No runs yet.</span>`
  return html`<div class="timeline" aria-label="recent runs, oldest first">${[...runs]
    .reverse()
    .map(
      (c) =>
        html`<span class="${c.status} run" title="${STATUS_WORDS[c.status] ?? c.status} · ${c.environment} · ${isoTime(c.dateAdded)}${c.durationMs === null ? '' : ` · ${Math.round(c.durationMs / 1000)} s`}"></span>`,
    )}</div>`
}

const TIMELINE_LEGEND = html`<div class="legend">${[
  'ok',
  'error',
  'missed',
  'timeout',
  'in_progress',
].map((s) => html`<span><span class="swatch ${s} run"></span>${STATUS_WORDS[s]}</span>`)}</div>`

function monitorRow(projectId: number, m: Monitor, runs: CheckInRecord[]): SafeHtml {
  const j = monitorJson(m)
  const next = j.next_checkin === null ? null : Date.parse(j.next_checkin)
  return html`<tr><td><a href="${projectUrl(projectId, `crons/${encodeURIComponent(m.slug)}`)}"><b>${m.slug}</b></a>
<div class="small muted">${m.environments.map((e) => e.environment).join(', ')}</div></td>
<td class="mono nowrap">${scheduleText(m.schedule)}</td><td class="small">${m.timezone}</td>
<td><span class="badge ${badgeClass(j.status)}">${STATUS_WORDS[j.status] ?? j.status}</span></td>
<td class="small nowrap">${next === null ? '—' : html`${zoned(next, m.timezone)}<div class="muted">${relTime(next)}</div>`}</td>
<td>${timeline(runs)}</td></tr>`
}

const DetailQuery = z.object({ environment: z.string().max(64).default('') })

/** The Crons view (cron monitors): schedules, states, next runs and run timelines. */
export async function cronRoutes(app: FastifyInstance, deps: UiDeps): Promise<void> {
  const { store } = deps.services

  app.get(
    '/projects/:projectId/crons',
    { config: { access: onProject('project:read') } },
    async (req, reply) => {
      const project = await projectParam(deps, req.params)
      const [ctx, monitors] = await Promise.all([
        pageContext(deps, req, 'crons', project),
        store.listMonitors(project.id),
      ])
      const rows = await Promise.all(
        monitors.map(async (m) =>
          monitorRow(project.id, m, (await store.listCheckIns(m.id, {}, { limit: 40 })).checkIns),
        ),
      )
      const body = html`<h1>${project.name}: crons</h1>
<p class="muted">Monitors appear with their first check-in and carry their own schedule. A missed or overrunning run becomes an ordinary issue.</p>
<div class="table-wrap"><table><thead><tr><th>Monitor</th><th>Schedule</th><th>Time zone</th><th>Status</th><th>Next expected run</th><th>Recent runs</th></tr></thead>
<tbody>${rows.length === 0 ? html`<tr><td colspan="6" class="empty">No monitors yet: send a check-in with a monitor_config.</td></tr>` : rows}</tbody></table></div>${TIMELINE_LEGEND}`
      return sendPage(reply, layout(ctx, `${project.name} crons`, body))
    },
  )

  app.get(
    '/projects/:projectId/crons/:slug',
    { config: { access: onProject('project:read') } },
    async (req, reply) => {
      const project = await projectParam(deps, req.params)
      const slug = (req.params as { slug?: string }).slug ?? ''
      const monitor = await store.getMonitor(project.id, slug)
      if (monitor === undefined) throw notFound('monitor')
      const q = parseInput(DetailQuery, req.query, 'query')
      const env = q.environment === '' ? undefined : q.environment
      const [ctx, page] = await Promise.all([
        pageContext(deps, req, 'crons', project),
        store.listCheckIns(monitor.id, { environment: env }, { limit: 100 }),
      ])
      const envRows = monitor.environments.map(
        (
          e,
        ) => html`<tr><td>${e.environment}</td><td><span class="badge ${badgeClass(e.status)}">${STATUS_WORDS[e.status] ?? e.status}</span></td>
<td class="small">${e.lastCheckIn === null ? '—' : zoned(e.lastCheckIn, monitor.timezone)}</td>
<td class="small">${e.nextCheckIn === null ? '—' : html`${zoned(e.nextCheckIn, monitor.timezone)} <span class="muted">(${relTime(e.nextCheckIn)})</span>`}</td>
<td class="num">${e.failures}</td></tr>`,
      )
      const runs = page.checkIns.map(
        (
          c,
        ) => html`<tr><td><span class="badge ${badgeClass(c.status)}">${STATUS_WORDS[c.status] ?? c.status}</span></td>
<td>${c.environment}</td><td class="small nowrap">${zoned(c.dateAdded, monitor.timezone)}</td>
<td class="small nowrap">${c.expectedTime === null ? '—' : zoned(c.expectedTime, monitor.timezone)}</td>
<td class="num">${c.durationMs === null ? '—' : `${(c.durationMs / 1000).toFixed(1)} s`}</td>
<td class="small">${c.release ?? ''}</td>
<td class="mono small">${c.eventId === null ? '' : html`<a href="/projects/${project.id}/events/${c.eventId}">${c.eventId.slice(0, 12)}</a>`}</td></tr>`,
      )
      const body = html`<p class="small"><a href="${projectUrl(project.id, 'crons')}">« Crons</a></p>
<h1>${monitor.slug}</h1>
<div class="stats"><div><b class="mono">${scheduleText(monitor.schedule)}</b><span>schedule</span></div>
<div><b>${monitor.timezone}</b><span>time zone</span></div>
<div><b>${monitor.checkinMargin} min</b><span>check-in margin</span></div>
<div><b>${monitor.maxRuntime} min</b><span>max runtime</span></div></div>
<div class="card"><b>Timeline</b> <span class="small muted">(oldest to newest)</span>${timeline(page.checkIns)}${TIMELINE_LEGEND}</div>
<h2>Environments</h2><div class="table-wrap"><table><thead><tr><th>Environment</th><th>Status</th><th>Last check-in</th><th>Next expected</th><th class="num">Failures in a row</th></tr></thead><tbody>${envRows}</tbody></table></div>
<h2>Runs</h2><div class="table-wrap"><table><thead><tr><th>Status</th><th>Environment</th><th>Started</th><th>Expected</th><th class="num">Duration</th><th>Release</th><th>Event</th></tr></thead>
<tbody>${runs.length === 0 ? html`<tr><td colspan="7" class="empty">No runs.</td></tr>` : runs}</tbody></table></div>`
      return sendPage(reply, layout(ctx, `${monitor.slug} monitor`, body))
    },
  )

  // Links from runs to their error event: find the event's issue and show it there.
  app.get(
    '/projects/:projectId/events/:eventId',
    { config: { access: onProject('project:read') } },
    async (req, reply) => {
      const project = await projectParam(deps, req.params)
      const raw = (req.params as { eventId?: string }).eventId ?? ''
      const eventId = raw.replaceAll('-', '').toLowerCase()
      const event = /^[0-9a-f]{32}$/.test(eventId)
        ? await store.getEvent(project.id, eventId)
        : undefined
      if (event === undefined) throw notFound('event')
      return reply.redirect(`/issues/${event.issueId}?event=${event.eventId}`, 303)
    },
  )
}
