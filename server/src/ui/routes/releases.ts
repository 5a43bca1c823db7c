import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { Cursor } from '../../api/cursor.ts'
import { onProject } from '../../http/route-access.ts'
import { parseInput } from '../../http-kit/validate.ts'
import {
  type HealthCounts,
  SESSION_CATEGORIES,
  type SessionCategory,
} from '../../store/release-health-types.ts'
import type { ReleaseRecord } from '../../store/release-types.ts'
import {
  type BarColumn,
  barChart,
  type ChartRange,
  foldIntoBuckets,
  legend,
  lineChart,
  rangeWindow,
  type Series,
} from '../chart.ts'
import { pageContext, projectParam, type UiDeps } from '../context.ts'
import { count, isoTime, percent, truncate } from '../format.ts'
import { html } from '../html.ts'
import { layout, projectUrl, sendPage } from '../layout.ts'

const HOUR = 3_600_000
const DAY = 24 * HOUR

const RANGES = {
  '24h': { span: DAY, bucket: HOUR, label: '24 hours' },
  '14d': { span: 14 * DAY, bucket: DAY, label: '14 days' },
  '90d': { span: 90 * DAY, bucket: DAY, label: '90 days' },
} as const satisfies Record<string, ChartRange>

const ReleasesQuery = z.object({
  range: z.enum(['24h', '14d', '90d']).default('14d'),
  environment: z.string().max(64).default(''),
  release: z.string().max(250).default(''),
  cursor: Cursor.optional(),
})

/** Releases per page of the list, and environments offered by its filter. */
const RELEASES_PER_PAGE = 100
const ENVIRONMENTS_SHOWN = 100

const CATEGORY_COLORS: Record<SessionCategory, string> = {
  healthy: '#3d9a5b',
  errored: '#e0a21b',
  unhandled: '#d9822b',
  abnormal: '#8c4ad6',
  crashed: '#d14b3d',
}

/** Crash-free ratio (0..1) of a count group, or null without sessions. */
export function crashFree(c: { total: number; crashed: number }): number | null {
  return c.total === 0 ? null : (c.total - c.crashed) / c.total
}

const emptyCounts = (): HealthCounts => ({
  sessions: { total: 0, healthy: 0, errored: 0, unhandled: 0, abnormal: 0, crashed: 0 },
  users: { total: 0, healthy: 0, errored: 0, unhandled: 0, abnormal: 0, crashed: 0 },
})

/** Adds hourly counts into a bucket (users are summed per hour: an upper bound per bucket). */
function addInto(into: HealthCounts, c: HealthCounts): void {
  for (const side of ['sessions', 'users'] as const) {
    into[side].total += c[side].total
    for (const k of SESSION_CATEGORIES) into[side][k] += c[side][k]
  }
}

const when = (ms: number | null) => (ms === null ? '—' : `${isoTime(ms).slice(0, 16)} UTC`)

/**
 * The releases sentry-cli or a bundler plugin recorded for the project (`releases new`,
 * `finalize`, `set-commits`, `deploys new`): when each was created and released, its commits
 * and its last deploy. Nothing when none were recorded.
 */
function recordedReleases(list: readonly ReleaseRecord[]) {
  if (list.length === 0) return ''
  const rows = list.map(
    (
      r,
    ) => html`<tr><td class="break"><b>${truncate(r.version, 80)}</b>${r.status === 'archived' ? html` <span class="muted small">archived</span>` : ''}</td>
<td class="nowrap small">${when(r.dateCreated)}</td><td class="nowrap small">${when(r.dateReleased)}</td>
<td class="num">${count(r.commitCount)}</td><td class="small">${r.lastCommit === null ? '—' : r.lastCommit.slice(0, 12)}</td>
<td class="small">${r.lastDeploy === null ? '—' : html`${truncate(r.lastDeploy.environment, 40)}${r.lastDeploy.name === null ? '' : html` (${truncate(r.lastDeploy.name, 60)})`}, ${when(r.lastDeploy.dateFinished)}`}</td>
<td class="num">${count(r.deployCount)}</td></tr>`,
  )
  return html`<div class="card"><h2>Recorded releases</h2>
<p class="muted small">Created by sentry-cli or a bundler plugin: newest first.</p>
<div class="table-wrap"><table><thead><tr><th>Release</th><th>Created</th><th>Released</th><th class="num">Commits</th><th>Last commit</th><th>Last deploy</th><th class="num">Deploys</th></tr></thead>
<tbody>${rows}</tbody></table></div></div>`
}

/**
 * The Releases view (the session rollups): crash-free session and user rates per release in the
 * chosen range and environment, and for one release a chart of its rates and sessions over time.
 */
export async function releaseRoutes(app: FastifyInstance, deps: UiDeps): Promise<void> {
  const { store } = deps.services

  app.get(
    '/projects/:projectId/releases',
    { config: { access: onProject('project:read') } },
    async (req, reply) => {
      const project = await projectParam(deps, req.params)
      const q = parseInput(ReleasesQuery, req.query, 'query')
      const r = RANGES[q.range]
      const { since, until } = rangeWindow(r, Date.now())
      const env = q.environment === '' ? undefined : q.environment
      const [ctx, { releases, next }, allEnvs, recorded] = await Promise.all([
        pageContext(deps, req, 'releases', project),
        store.listReleaseHealth(
          project.id,
          { since, until, environment: env },
          { limit: RELEASES_PER_PAGE, cursor: q.cursor },
        ),
        store.releaseEnvironments(
          project.id,
          { since: until - 90 * DAY, until },
          ENVIRONMENTS_SHOWN + 1,
        ),
        store.listReleases(project.teamId, project.id, 20),
      ])
      const environments = allEnvs.filter((e) => e !== '').slice(0, ENVIRONMENTS_SHOWN)
      const selected = releases.find((x) => x.release === q.release) ?? releases[0]
      const url = (
        over: Partial<Record<'range' | 'environment' | 'release' | 'cursor', string>>,
      ) => {
        const p = new URLSearchParams({
          range: q.range,
          environment: q.environment,
          release: q.release,
          cursor: q.cursor ?? '',
          ...over,
        })
        for (const k of ['environment', 'release', 'cursor']) if (p.get(k) === '') p.delete(k)
        return `${projectUrl(project.id, 'releases')}?${p}`
      }

      let chart = html`<p class="muted">No sessions in this range.</p>`
      if (selected !== undefined) {
        const found = await store.releaseHealthSeries(project.id, selected.release, {
          since,
          until,
          environment: env,
        })
        const { starts: xs, buckets } = foldIntoBuckets(
          { since, until },
          r.bucket,
          found?.series ?? [],
          (p) => p.hour,
          emptyCounts,
          (b, p) => addInto(b, p.counts),
        )
        const line = (label: string, color: string, side: 'sessions' | 'users') => ({
          label,
          color,
          points: xs.map((x, i) => {
            const rate = crashFree((buckets[i] as HealthCounts)[side])
            return { x, y: rate === null ? null : rate * 100 }
          }),
        })
        const lines = [
          line('crash-free sessions', '#2f5bd3', 'sessions'),
          line('crash-free users', '#3d9a5b', 'users'),
        ]
        const rates = lines.flatMap((l) => l.points.map((p) => p.y)).filter((y) => y !== null)
        const low = Math.min(90, Math.max(0, Math.floor(Math.min(100, ...rates) / 10) * 10))
        const columns: BarColumn[] = xs.map((start, i) => ({
          start,
          values: Object.fromEntries(
            SESSION_CATEGORIES.map((k) => [k, (buckets[i] as HealthCounts).sessions[k]]),
          ),
        }))
        const series: Series[] = SESSION_CATEGORIES.map((k) => ({
          key: k,
          label: k,
          color: CATEGORY_COLORS[k],
        }))
        chart = html`<h2>${selected.release}</h2>
<div class="stats"><div><b>${percent(crashFree(selected.counts.sessions))}</b><span>crash-free sessions</span></div>
<div><b>${percent(crashFree(selected.counts.users))}</b><span>crash-free users</span></div>
<div><b>${count(selected.counts.sessions.total)}</b><span>sessions</span></div>
<div><b>${count(selected.counts.users.total)}</b><span>users</span></div></div>
<h3>Crash-free rate</h3>${lineChart(lines, xs, r.bucket, low, 100, (v) => `${Math.round(v)}%`)}
${legend(lines.map((l) => ({ key: l.label, label: l.label, color: l.color })))}
<h3>Sessions</h3>${barChart(columns, series, r.bucket, 'sessions')}${legend(series)}`
      }

      const rows = releases.map(
        (
          x,
        ) => html`<tr class="${x.release === selected?.release ? 'on' : ''}"><td class="break"><a href="${url({ release: x.release })}"><b>${truncate(x.release, 80)}</b></a></td>
<td class="small">${x.environments.map((e) => (e === '' ? '(none)' : e)).join(', ')}</td>
<td class="num">${percent(crashFree(x.counts.sessions))}</td><td class="num">${count(x.counts.sessions.total)}</td>
<td class="num">${percent(crashFree(x.counts.users))}</td><td class="num">${count(x.counts.users.total)}</td>
<td class="nowrap small">${isoTime(x.lastSeen).slice(0, 16)} UTC</td></tr>`,
      )
      const body = html`<h1>${project.name}: releases</h1>
<form class="filters" method="get" action="${projectUrl(project.id, 'releases')}">
<input type="hidden" name="range" value="${q.range}">
<select name="environment" aria-label="Environment"><option value="">All environments</option>${environments.map(
        (e) =>
          html`<option value="${e}"${e === q.environment ? html` selected` : ''}>${e}</option>`,
      )}</select><button type="submit">Filter</button>
<span class="row small">${Object.entries(RANGES).map(([id, x]) =>
        id === q.range
          ? html`<b>${x.label}</b>`
          : html`<a href="${url({ range: id as keyof typeof RANGES })}">${x.label}</a>`,
      )}</span></form>
<div class="table-wrap"><table><thead><tr><th>Release</th><th>Environments</th><th class="num">Crash-free sessions</th><th class="num">Sessions</th><th class="num">Crash-free users</th><th class="num">Users</th><th>Last active hour</th></tr></thead>
<tbody>${rows.length === 0 ? html`<tr><td colspan="7" class="empty">No sessions in this range. SDKs send sessions when a release is set.</td></tr>` : rows}</tbody></table></div>
<div class="pager">${
        q.cursor === undefined
          ? ''
          : html`<a class="button" href="${url({ cursor: '' })}">« First page</a>`
      }${next === undefined ? '' : html`<a class="button" href="${url({ cursor: next })}" rel="next">Next page »</a>`}</div>
<div class="card">${chart}</div>
${recordedReleases(recorded)}`
      return sendPage(reply, layout(ctx, `${project.name} releases`, body))
    },
  )
}
