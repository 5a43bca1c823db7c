/**
 * `--scale`'s search timings (docs/search.md): twelve representative issue searches through the
 * HTTP API, each sampled while wrk loads ingest, reported as p95; and the tag distribution of
 * the biggest issue (a tenth of the pre-filled events, scale.ts).
 */
import { median } from './report.ts'

/** The twelve queries: a tag value, a wildcard, negations, text that hits and misses, combined. */
export const SEARCHES: readonly { name: string; query: string; sort?: string }[] = [
  { name: 'one tag value', query: 'browser.name:Firefox' },
  { name: 'wildcard', query: 'url:*checkout*' },
  { name: 'negation', query: '!browser.name:Chrome' },
  { name: 'text in an exception value', query: '"bench failure 421"' },
  { name: 'text that hits nothing', query: 'zzqxnothinghere' },
  { name: 'is: + tag + date', query: 'is:unresolved browser.name:Safari firstSeen:-30d' },
  { name: 'has:', query: 'has:user' },
  { name: '!has:', query: '!has:user' },
  { name: 'user', query: 'user.id:4242' },
  { name: 'list of values', query: 'shard:[3, 7]' },
  { name: 'times_seen', query: 'times_seen:>100' },
  {
    name: 'is: + date + text, by users',
    query: 'is:unresolved lastSeen:-30d failure',
    sort: 'users',
  },
]

/** p95 and median of each search and of the big issue's tag distribution, ms. */
export interface SearchTimes {
  samples: number
  searches: { name: string; query: string; p95Ms: number; medianMs: number; issues: number }[]
  distribution: { issueEvents: number; p95Ms: number; medianMs: number }
}

const p95 = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil(s.length * 0.95) - 1)] ?? 0
}

/** Times every search `samples` times (round robin) and the tag distribution as often. */
export async function timeSearches(
  url: string,
  token: string,
  projectId: string,
  samples: number,
): Promise<SearchTimes> {
  const headers = { authorization: `Bearer ${token}` }
  const get = async (path: string): Promise<{ ms: number; body: unknown }> => {
    const t0 = performance.now()
    const res = await fetch(`${url}${path}`, { headers })
    const body = await res.json()
    if (res.status !== 200) throw new Error(`search timing: ${path} answered ${res.status}`)
    return { ms: performance.now() - t0, body }
  }
  const big = (await get(`/api/0/projects/${projectId}/issues/?sort=times_seen&limit=1`)).body as {
    id: number
    count: number
  }[]
  const bigIssue = big[0]
  if (bigIssue === undefined) throw new Error('search timing: the project has no issue')
  const times = SEARCHES.map(() => [] as number[])
  const found = SEARCHES.map(() => 0)
  const dist: number[] = []
  for (let n = 0; n < samples; n++) {
    for (const [i, s] of SEARCHES.entries()) {
      const q = new URLSearchParams({
        query: s.query,
        limit: '50',
        ...(s.sort ? { sort: s.sort } : {}),
      })
      const r = await get(`/api/0/projects/${projectId}/issues/?${q}`)
      times[i]?.push(r.ms)
      found[i] = (r.body as unknown[]).length
    }
    dist.push((await get(`/api/0/issues/${bigIssue.id}/tags/`)).ms)
  }
  const r = (x: number) => Math.round(x * 10) / 10
  return {
    samples,
    searches: SEARCHES.map((s, i) => ({
      name: s.name,
      query: s.query,
      p95Ms: r(p95(times[i] ?? [])),
      medianMs: r(median(times[i] ?? [])),
      issues: found[i] ?? 0,
    })),
    distribution: { issueEvents: bigIssue.count, p95Ms: r(p95(dist)), medianMs: r(median(dist)) },
  }
}

/** The report lines of one run's search timings. */
export function formatSearches(t: SearchTimes): string {
  const lines = t.searches.map(
    (s) =>
      `  ${s.name.padEnd(30)} p95 ${s.p95Ms} ms, median ${s.medianMs} ms (${s.issues} issues) ${s.query}`,
  )
  lines.push(
    `  tag distribution of a ${t.distribution.issueEvents}-event issue: p95 ${t.distribution.p95Ms} ms, median ${t.distribution.medianMs} ms`,
  )
  return `search under ingest load (${t.samples} samples each):\n${lines.join('\n')}`
}
