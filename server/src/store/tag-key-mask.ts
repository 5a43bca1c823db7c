import type { IssueTagRow } from './search-summaries.ts'

/**
 * The promoted tag keys (search/event-tags.ts) an issue has carried, as bits of
 * `issues.tag_keys` (docs/search.md, "What is indexed"): `has:` and `!has:` of these keys are a
 * test of the issue's own row instead of a probe of `issue_tags` per issue walked (a negation
 * walks every issue of the project). Bits are never reused: a key added later takes the next
 * one, and its existing issues need a migration that sets it. The `issue_facets` keys
 * (`environment`, `release`, `component`) are answered from there, so they have none.
 */
export const TAG_KEY_BITS: ReadonlyMap<string, number> = new Map(
  [
    'level',
    'dist',
    'transaction',
    'server_name',
    'url',
    'browser',
    'browser.name',
    'os',
    'os.name',
    'runtime',
    'device',
    'user',
    'user.id',
    'user.email',
    'user.username',
    'user.ip',
    'handled',
    'mechanism',
  ].map((key, i) => [key, 2 ** i]),
)

/** Each issue's bits of the keys among `rows`, in issue order (issues with none left out). */
export function issueKeyMasks(rows: readonly IssueTagRow[]): [number, number][] {
  const masks = new Map<number, number>()
  for (const r of rows) {
    const bit = TAG_KEY_BITS.get(r[1])
    if (bit !== undefined) masks.set(r[0], (masks.get(r[0]) ?? 0) | bit)
  }
  return [...masks].sort((a, b) => a[0] - b[0])
}
