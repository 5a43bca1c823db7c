import { decodeSearch } from './event-tags.ts'
import { type Comparison, QuerySyntaxError, type SearchQuery, valueMatches } from './query.ts'

/** An event as the event search sees it: its stored search string, columns and receive time. */
export interface SearchableEvent {
  /** `events.search` (event-tags.ts eventSearchString); null for events stored before it. */
  search: string | null
  received: number
  /** The tags kept as the row's own columns (event-tags.ts COLUMN_TAGS). */
  level?: string | null
  release?: string | null
  environment?: string | null
  component?: string | null
}

const compare = (a: number, op: Comparison, b: number): boolean =>
  op === '>' ? a > b : op === '>=' ? a >= b : op === '<' ? a < b : op === '<=' ? a <= b : a === b

/**
 * Refuses the terms that describe an issue, not an event (`is:`, `times_seen:`, `users:`),
 * with the same 400 as a syntax error: the search of an issue's events never ignores a term.
 */
export function checkEventQuery(q: SearchQuery): void {
  for (const t of q.terms) {
    if (t.kind === 'status')
      throw new QuerySyntaxError('is: applies to issues, not to events', t.at, `is:${t.status}`)
    if (t.kind === 'count')
      throw new QuerySyntaxError(`${t.field}: applies to issues, not to events`, t.at, t.field)
  }
}

/**
 * Whether one event matches every term of a query (checked by {@link checkEventQuery}): tags
 * as the issue search (`*` wildcards, case-sensitive), free text as a case-insensitive
 * substring of the event's text or a tag value, `firstSeen`/`lastSeen`/`age` against the
 * event's receive time. The same rule on both backends: it runs in code over the rows read.
 */
export function eventMatches(q: SearchQuery, e: SearchableEvent): boolean {
  const { tags, text } = decodeSearch(e.search ?? '')
  for (const k of ['level', 'release', 'environment', 'component'] as const) {
    const v = e[k]
    if (v !== undefined && v !== null && v !== '') tags.set(k, v)
  }
  let lowered: string | undefined
  for (const t of q.terms) {
    switch (t.kind) {
      case 'tag': {
        const v = tags.get(t.key)
        const hit = v !== undefined && t.values.some((p) => valueMatches(p, v))
        if (hit === t.negated) return false
        break
      }
      case 'has':
        if (tags.has(t.key) === t.negated) return false
        break
      case 'time':
        if (!compare(e.received, t.op, t.at)) return false
        break
      case 'text': {
        lowered ??= `${text}\n${[...tags.values()].join('\n')}`.toLowerCase()
        if (!lowered.includes(t.text.toLowerCase())) return false
        break
      }
      default:
        return false
    }
  }
  return true
}
