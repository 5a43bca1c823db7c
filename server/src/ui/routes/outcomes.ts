import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { describeOutcome, OUTCOME_KINDS, outcomeLabel } from '../../api/outcomes.ts'
import { onProject } from '../../http/route-access.ts'
import { parseInput } from '../../http-kit/validate.ts'
import type { OutcomeFilter } from '../../store/types.ts'
import {
  type BarColumn,
  barChart,
  type ChartRange,
  foldIntoBuckets,
  legend,
  rangeWindow,
  type Series,
} from '../chart.ts'
import { pageContext, projectParam, type UiDeps } from '../context.ts'
import { count, truncate } from '../format.ts'
import { html } from '../html.ts'
import { layout, projectUrl, sendPage } from '../layout.ts'

const HOUR = 3_600_000
const DAY = 24 * HOUR

/** Ranges of the Outcomes view: length and chart bucket. */
const RANGES = {
  '24h': { span: DAY, bucket: HOUR, label: '24 hours' },
  '7d': { span: 7 * DAY, bucket: DAY, label: '7 days' },
  '30d': { span: 30 * DAY, bucket: DAY, label: '30 days' },
} as const satisfies Record<string, ChartRange>

/** Colours of the outcome kinds in chart and legend. */
const COLORS: Record<string, string> = {
  accepted: '#3d9a5b',
  duplicate: '#9aa5b5',
  rejected: '#d14b3d',
  over_quota: '#e0a21b',
  filtered: '#6b7b8c',
  unsupported: '#8c4ad6',
  client_discard: '#4a90c2',
}

const LABELS: Record<string, string> = {
  accepted: 'accepted',
  duplicate: 'duplicate',
  rejected: 'rejected',
  over_quota: 'over quota',
  filtered: 'filtered',
  unsupported: 'unsupported',
  client_discard: 'never arrived',
}

const OutcomesQuery = z.object({
  range: z.enum(['24h', '7d', '30d']).default('24h'),
  component: z.string().max(64).default(''),
  category: z.string().max(64).default(''),
})

/**
 * The Outcomes view (the outcome counters): what happened to what was sent, as a chart over time
 * and a table by outcome and reason, filterable by component DSN.
 */
export async function outcomeRoutes(app: FastifyInstance, deps: UiDeps): Promise<void> {
  const { store } = deps.services

  app.get(
    '/projects/:projectId/outcomes',
    { config: { access: onProject('project:read') } },
    async (req, reply) => {
      const project = await projectParam(deps, req.params)
      const q = parseInput(OutcomesQuery, req.query, 'query')
      const r = RANGES[q.range]
      const { since, until } = rangeWindow(r, Date.now())
      const keys = await store.listKeys(project.id)
      const components = [...new Set(keys.map((k) => k.component).filter((c) => c !== null))].sort()
      const filter: OutcomeFilter = { since, until }
      if (q.component !== '') {
        filter.keyIds = keys.filter((k) => k.component === q.component).map((k) => k.id)
      }
      const [ctx, allTotals, allHours] = await Promise.all([
        pageContext(deps, req, 'outcomes', project),
        store.outcomeTotalsBy(project.id, filter),
        store.outcomeHours(project.id, filter),
      ])
      const categories = [...new Set(allTotals.map((t) => t.category))].sort()
      const inCategory = (t: { category: string }) => q.category === '' || t.category === q.category
      const totals = allTotals.filter(inCategory)
      const hours = allHours.filter(inCategory)
      const columns = foldIntoBuckets(
        { since, until },
        r.bucket,
        hours,
        (h) => h.hour,
        (start): BarColumn => ({ start, values: {} }),
        (col, h) => {
          col.values[h.outcome] = (col.values[h.outcome] ?? 0) + h.quantity
        },
      ).buckets
      const kinds = [...OUTCOME_KINDS, ...new Set(hours.map((h) => h.outcome))].filter(
        (k, i, all) => all.indexOf(k) === i,
      )
      const series: Series[] = kinds.map((k) => ({
        key: k,
        label: LABELS[k] ?? k,
        color: COLORS[k] ?? '#7b97e6',
      }))
      const order = (o: string) => {
        const i = kinds.indexOf(o)
        return i === -1 ? kinds.length : i
      }
      const rows = [...totals].sort(
        (a, b) => order(a.outcome) - order(b.outcome) || b.quantity - a.quantity,
      )
      const sum = (kind: string) =>
        totals.filter((t) => t.outcome === kind).reduce((s, t) => s + t.quantity, 0)
      const url = (over: Partial<z.infer<typeof OutcomesQuery>>) => {
        const p = new URLSearchParams({ ...q, ...over })
        for (const k of ['component', 'category']) if (p.get(k) === '') p.delete(k)
        return `${projectUrl(project.id, 'outcomes')}?${p}`
      }
      const body = html`<h1>${project.name}: outcomes</h1>
<p class="muted">What happened to everything the SDKs sent: stored, refused and why, over quota, filtered by an inbound filter, dropped as unsupported, or never arrived (from the SDKs' own client reports).</p>
<form class="filters" method="get" action="${projectUrl(project.id, 'outcomes')}">
<input type="hidden" name="range" value="${q.range}">
<select name="component" aria-label="Component"><option value="">All keys and components</option>${components.map(
        (c) => html`<option value="${c}"${c === q.component ? html` selected` : ''}>${c}</option>`,
      )}</select><select name="category" aria-label="Category"><option value="">All categories</option>${categories.map(
        (c) => html`<option value="${c}"${c === q.category ? html` selected` : ''}>${c}</option>`,
      )}</select><button type="submit">Filter</button>
<span class="row small">${Object.entries(RANGES).map(([id, x]) =>
        id === q.range
          ? html`<b>${x.label}</b>`
          : html`<a href="${url({ range: id as keyof typeof RANGES })}">${x.label}</a>`,
      )}</span></form>
<div class="stats">${series.map((s) => html`<div><b>${count(sum(s.key))}</b><span>${s.label}</span></div>`)}</div>
<div class="card">${barChart(columns, series, r.bucket, 'items')}${legend(series)}</div>
<div class="table-wrap"><table><thead><tr><th>Outcome</th><th>Category</th><th class="num">Quantity</th><th>Meaning</th></tr></thead><tbody>${
        rows.length === 0
          ? html`<tr><td colspan="4" class="empty">Nothing counted in this range.</td></tr>`
          : rows.map(
              (
                t,
              ) => html`<tr><td class="mono nowrap"><span class="badge ${t.outcome === 'accepted' ? 'ok' : t.outcome === 'rejected' ? 'error' : ''}">${truncate(outcomeLabel(t.outcome, t.reason), 80)}</span></td>
<td>${t.category}</td><td class="num">${count(t.quantity)}</td><td class="small">${describeOutcome(t.outcome, t.reason)}</td></tr>`,
            )
      }</tbody></table></div>`
      return sendPage(reply, layout(ctx, `${project.name} outcomes`, body))
    },
  )
}
