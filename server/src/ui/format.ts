/** Small text formatters shared by the pages. */

const UNITS: [number, string][] = [
  [365 * 86_400_000, 'y'],
  [30 * 86_400_000, 'mo'],
  [7 * 86_400_000, 'w'],
  [86_400_000, 'd'],
  [3_600_000, 'h'],
  [60_000, 'min'],
  [1000, 's'],
]

/** "5 min ago" / "in 3 h": the largest whole unit of the distance from `now`. */
export function relTime(ms: number, now = Date.now()): string {
  const d = now - ms
  const abs = Math.abs(d)
  if (abs < 5000) return 'just now'
  for (const [size, unit] of UNITS) {
    if (abs >= size) {
      const n = Math.floor(abs / size)
      return d >= 0 ? `${n} ${unit} ago` : `in ${n} ${unit}`
    }
  }
  return 'just now'
}

/** UTC timestamp without milliseconds: `2026-05-01 12:03:04 UTC`. */
export function isoTime(ms: number): string {
  if (!Number.isFinite(ms)) return '—'
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`
}

/** A count with thousands separators (locale-independent). */
export function count(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}

/** A ratio 0..1 as a percentage with up to two decimals, or '—'. */
export function percent(ratio: number | null | undefined): string {
  if (ratio === null || ratio === undefined || !Number.isFinite(ratio)) return '—'
  const p = ratio * 100
  return `${p >= 99.995 ? '100' : p.toFixed(2).replace(/\.?0+$/, '')}%`
}

/** Shortens long text for one-line cells; the full text stays in the title attribute. */
export function truncate(text: string, max = 200): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}
