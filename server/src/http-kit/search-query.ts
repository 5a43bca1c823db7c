import { ApiError } from '../errors.ts'
import { checkEventQuery } from '../search/match-event.ts'
import { parseQuery, QuerySyntaxError, type SearchQuery, type SearchTerm } from '../search/query.ts'
import type { IssueSort } from '../store/search-types.ts'

/**
 * A `?query=` that does not parse: a 400 whose body says where and what, besides `detail`
 * (`{"detail": "...", "position": 7, "token": "\"abc"}`), for the API and the page alike.
 */
export class QueryError extends ApiError {
  readonly position: number
  readonly token: string
  constructor(e: QuerySyntaxError) {
    super('bad_request', `invalid query: ${e.message}`)
    this.position = e.position
    this.token = e.token
  }
  override toBody(): { detail: string; causes?: string[]; position: number; token: string } {
    return { ...super.toBody(), position: this.position, token: this.token }
  }
}

/** Parses a query for the API or a page; a syntax error becomes a {@link QueryError}. */
export function parseSearch(query: string | undefined, now: number): SearchQuery {
  try {
    return parseQuery(query ?? '', now)
  } catch (err) {
    if (err instanceof QuerySyntaxError) throw new QueryError(err)
    throw err
  }
}

/** Parses a query over one issue's events (issue-only terms refused the same way). */
export function parseEventSearch(query: string | undefined, now: number): SearchQuery {
  const q = parseSearch(query, now)
  try {
    checkEventQuery(q)
  } catch (err) {
    if (err instanceof QuerySyntaxError) throw new QueryError(err)
    throw err
  }
  return q
}

/** The issue list's separate filters from before the language, kept working as its terms. */
export interface LegacyFilters {
  status?: 'unresolved' | 'resolved' | 'ignored' | undefined
  forReview?: boolean | undefined
  environment?: string | undefined
  release?: string | undefined
  component?: string | undefined
}

/** Adds the separate filters to a parsed query, as `is:`, `!is:for_review` and tag terms. */
export function withFilters(q: SearchQuery, f: LegacyFilters): SearchQuery {
  const terms: SearchTerm[] = [...q.terms]
  if (f.status !== undefined)
    terms.push({ kind: 'status', status: f.status, negated: false, at: 0 })
  if (f.forReview !== undefined)
    terms.push({ kind: 'status', status: 'for_review', negated: !f.forReview, at: 0 })
  for (const key of ['environment', 'release', 'component'] as const) {
    const v = f[key]
    if (v !== undefined && v !== '') terms.push({ kind: 'tag', key, values: [v], negated: false })
  }
  return { terms }
}

/** The `sort` parameter's values: ours and Sentry's names (`date`, `new`, `freq`, `user`). */
export const SORTS = [
  'last_seen',
  'first_seen',
  'times_seen',
  'users',
  'date',
  'new',
  'freq',
  'user',
] as const

/** The store's order of a `sort` value (default: last seen). */
export function issueSort(s: (typeof SORTS)[number] | undefined): IssueSort {
  switch (s) {
    case 'first_seen':
    case 'new':
      return 'first_seen'
    case 'times_seen':
    case 'freq':
      return 'times_seen'
    case 'users':
    case 'user':
      return 'users'
    default:
      return 'last_seen'
  }
}
