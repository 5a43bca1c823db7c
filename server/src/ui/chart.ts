/**
 * Server-rendered inline SVG charts. Geometry is computed from numbers; the only text in them
 * (axis labels, hover titles) goes through `html` and is escaped like everything else.
 * Presentation attributes only (no `style`), so the page's CSP needs no inline styles.
 */
import { count } from './format.ts'
import { html, type SafeHtml } from './html.ts'

const W = 760
const H = 150
const PAD = { left: 40, right: 8, top: 10, bottom: 22 }

/** One bar of a (possibly stacked) bar chart. */
export interface BarColumn {
  start: number
  /** Value per series key. */
  values: Record<string, number>
}

/** A named series with its colour. */
export interface Series {
  key: string
  label: string
  color: string
}

/** A chart's time range: its length and bucket, ms, and how the range picker names it. */
export interface ChartRange {
  span: number
  bucket: number
  label: string
}

/**
 * The window a chart of `range` shows at `now`: whole buckets ending with the current one, e.g.
 * the last 14 days including today. Every time-series view computes it here.
 */
export function rangeWindow(
  range: Pick<ChartRange, 'span' | 'bucket'>,
  now: number,
): { since: number; until: number } {
  const since = Math.floor(now / range.bucket) * range.bucket - (range.span - range.bucket)
  return { since, until: since + range.span }
}

/** Evenly spaced bucket starts from `since` to `until` (exclusive). */
export function bucketStarts(since: number, until: number, bucketMs: number): number[] {
  const out: number[] = []
  for (let t = since; t < until; t += bucketMs) out.push(t)
  return out
}

/**
 * Folds time-stamped rows into the buckets of a chart window: one accumulator per bucket start
 * (`make`), each row added (`add`) to the bucket its hour falls in, rows outside the window
 * dropped. Every time-series view buckets its rows here.
 */
export function foldIntoBuckets<Row, Bucket>(
  window: { since: number; until: number },
  bucketMs: number,
  rows: readonly Row[],
  hourOf: (row: Row) => number,
  make: (start: number) => Bucket,
  add: (into: Bucket, row: Row) => void,
): { starts: number[]; buckets: Bucket[] } {
  const starts = bucketStarts(window.since, window.until, bucketMs)
  const buckets = starts.map(make)
  for (const row of rows) {
    const b = buckets[Math.floor((hourOf(row) - window.since) / bucketMs)]
    if (b !== undefined) add(b, row)
  }
  return { starts, buckets }
}

const shortDate = (ms: number, bucketMs: number): string => {
  const iso = new Date(ms).toISOString()
  return bucketMs < 86_400_000 ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(5, 10)
}

/** A stacked bar chart of columns over time, with y-axis maximum and first/last labels. */
export function barChart(
  columns: readonly BarColumn[],
  series: readonly Series[],
  bucketMs: number,
  label = 'events',
): SafeHtml {
  const totals = columns.map((c) => series.reduce((s, x) => s + (c.values[x.key] ?? 0), 0))
  const max = Math.max(1, ...totals)
  const plotW = W - PAD.left - PAD.right
  const plotH = H - PAD.top - PAD.bottom
  const slot = plotW / Math.max(1, columns.length)
  const barW = Math.max(1, slot * 0.8)
  const bars = columns.map((c, i) => {
    let y = PAD.top + plotH
    const x = PAD.left + i * slot + (slot - barW) / 2
    const when = shortDate(c.start, bucketMs)
    return series.map((s) => {
      const v = c.values[s.key] ?? 0
      if (v <= 0) return ''
      const h = (v / max) * plotH
      y -= h
      return html`<rect class="bar" x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}" fill="${s.color}"><title>${when}: ${count(v)} ${series.length > 1 ? s.label : label}</title></rect>`
    })
  })
  const first = columns[0]
  const last = columns[columns.length - 1]
  const base = PAD.top + plotH
  return html`<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${label} over time">
<line class="axis" x1="${PAD.left}" y1="${base}" x2="${W - PAD.right}" y2="${base}" stroke="#dde1e7"/>
<line class="axis" x1="${PAD.left}" y1="${PAD.top}" x2="${W - PAD.right}" y2="${PAD.top}" stroke="#eef0f3"/>
<text x="${PAD.left - 6}" y="${PAD.top + 4}" text-anchor="end">${count(max)}</text>
<text x="${PAD.left - 6}" y="${base}" text-anchor="end">0</text>
${bars}
${first === undefined ? '' : html`<text x="${PAD.left}" y="${H - 6}">${shortDate(first.start, bucketMs)}</text>`}
${last === undefined ? '' : html`<text x="${W - PAD.right}" y="${H - 6}" text-anchor="end">${shortDate(last.start, bucketMs)}</text>`}
</svg>`
}

/** A legend for the series of a chart. */
export function legend(series: readonly Series[]): SafeHtml {
  return html`<div class="legend">${series.map(
    (s) =>
      html`<span><svg width="12" height="12" aria-hidden="true"><rect width="12" height="12" rx="2" fill="${s.color}"/></svg> ${s.label}</span>`,
  )}</div>`
}

/** A line series: y per x (null = no data at that point). */
export interface Line {
  label: string
  color: string
  points: { x: number; y: number | null }[]
}

/** Lines over time on a fixed y range (e.g. crash-free rate 0..100 %). */
export function lineChart(
  lines: readonly Line[],
  xs: readonly number[],
  bucketMs: number,
  yMin: number,
  yMax: number,
  yLabel: (v: number) => string,
): SafeHtml {
  const plotW = W - PAD.left - PAD.right
  const plotH = H - PAD.top - PAD.bottom
  const first = xs[0] ?? 0
  const last = xs[xs.length - 1] ?? first
  const span = Math.max(1, last - first)
  const px = (x: number) => PAD.left + ((x - first) / span) * plotW
  const py = (y: number) => PAD.top + plotH - ((y - yMin) / Math.max(1e-9, yMax - yMin)) * plotH
  const paths = lines.map((l) => {
    let d = ''
    let pen = false
    for (const p of l.points) {
      if (p.y === null) {
        pen = false
        continue
      }
      d += `${pen ? 'L' : 'M'}${px(p.x).toFixed(1)},${py(p.y).toFixed(1)} `
      pen = true
    }
    const dots = l.points
      .filter((p) => p.y !== null)
      .map(
        (p) =>
          html`<circle cx="${px(p.x).toFixed(1)}" cy="${py(p.y ?? 0).toFixed(1)}" r="2.5" fill="${l.color}"><title>${l.label} ${shortDate(p.x, bucketMs)}: ${yLabel(p.y ?? 0)}</title></circle>`,
      )
    return html`<path class="line" d="${d.trim()}" stroke="${l.color}" fill="none" stroke-width="2"/>${dots}`
  })
  const base = PAD.top + plotH
  return html`<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="rate over time">
<line class="axis" x1="${PAD.left}" y1="${base}" x2="${W - PAD.right}" y2="${base}" stroke="#dde1e7"/>
<line class="axis" x1="${PAD.left}" y1="${PAD.top}" x2="${W - PAD.right}" y2="${PAD.top}" stroke="#eef0f3"/>
<text x="${PAD.left - 6}" y="${PAD.top + 4}" text-anchor="end">${yLabel(yMax)}</text>
<text x="${PAD.left - 6}" y="${base}" text-anchor="end">${yLabel(yMin)}</text>
${paths}
${xs.length === 0 ? '' : html`<text x="${PAD.left}" y="${H - 6}">${shortDate(first, bucketMs)}</text><text x="${W - PAD.right}" y="${H - 6}" text-anchor="end">${shortDate(last, bucketMs)}</text>`}
</svg>`
}
