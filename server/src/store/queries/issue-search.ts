import { eventMatches } from '../../search/match-event.ts'
import { isWildcard, type SearchTerm } from '../../search/query.ts'
import { decodeCursor, type EventRow, type IssueRow, toEvent, toIssue } from '../rows/issues.ts'
import type { IssueSearchStore, IssueSort, TagDistribution } from '../search-types.ts'
import type { Dialect, SqlPort } from '../sql/port.ts'
import { join, raw, type Statement, sql } from '../sql/statement.ts'
import { TAG_KEY_BITS } from '../tag-key-mask.ts'
import { substringPattern } from '../text-filter.ts'

/** Most events one event search reads before it answers with a cursor to continue. */
export const EVENT_SCAN_LIMIT = 10_000
/** Events read per batch of the event search. */
const SCAN_BATCH = 500

const SORT_COLUMN: Record<IssueSort, string> = {
  last_seen: 'i.last_seen',
  first_seen: 'i.first_seen',
  times_seen: 'i.times_seen',
  users: 'i.users',
}

/**
 * A tag value pattern with `*` wildcards, per dialect: SQLite's `GLOB` and PostgreSQL's
 * `LIKE` are both case-sensitive, as tag values are (SQLite's `LIKE` folds ASCII case, so it
 * would answer differently). Each escapes its own special characters.
 */
function wildcard(d: Dialect, pattern: string): Statement {
  if (d === 'sqlite') {
    const glob = pattern.replace(/[[?]/g, (c) => `[${c}]`)
    return sql`value GLOB ${glob}`
  }
  const like = pattern.replace(/[\\%_]/g, (c) => `\\${c}`).replaceAll('*', '%')
  return sql`value LIKE ${like} ESCAPE '\\'`
}

/**
 * Free text over the issue's indexed text, per dialect: SQLite's FTS5 trigram table answers a
 * quoted phrase of 3 or more characters from its index (`LIKE … ESCAPE` would scan it), a
 * shorter one by `LIKE`; PostgreSQL's `ILIKE` is served by the pg_trgm GIN index. Both are a
 * case-insensitive substring match (SQLite folds ASCII and the FTS5 Unicode case folding).
 * A query holding U+0000 is matched on SQLite by `instr` over `lower()`: FTS5's query parser
 * stops at the first U+0000 (unterminated string) and `LIKE` compares both sides only up to it,
 * while `instr` and `lower` read the whole value. (PostgreSQL stores U+0000 as U+FFFD, in the
 * query as in the text, so `ILIKE` answers the same.)
 */
function textIn(d: Dialect, text: string): Statement {
  const like = substringPattern(text)
  // How one column holds the text, and the issues whose indexed text does.
  let has: (column: string) => Statement
  let indexed: Statement
  if (d === 'postgres') {
    has = (column) => sql`${raw(column)} ILIKE ${like} ESCAPE '\\'`
    indexed = sql`SELECT issue_id FROM issue_text WHERE ${has('body')}`
  } else if (text.includes('\0')) {
    const needle = text.toLowerCase()
    has = (column) => sql`instr(lower(${raw(column)}), ${needle}) > 0`
    indexed = sql`SELECT rowid FROM issue_text WHERE ${has('body')}`
  } else {
    has = (column) => sql`${raw(column)} LIKE ${like} ESCAPE '\\'`
    indexed =
      text.length >= 3
        ? sql`SELECT rowid FROM issue_text WHERE issue_text MATCH ${`"${text.replaceAll('"', '""')}"`}`
        : sql`SELECT rowid FROM issue_text WHERE ${has('body')}`
  }
  return sql`(${has('i.title')} OR ${has('i.culprit')} OR i.id IN (${indexed}))`
}

/**
 * Tag keys answered from `issue_facets` (kept since migration 007 for every issue) rather than
 * `issue_tags` (since migration 014): issues from before the search keep these filters.
 */
const FACET_KINDS = new Set(['environment', 'release', 'component'])

/**
 * Most keys of an issue's tag distribution (docs/search.md, "The issue page"): the issue page
 * and `GET /api/0/issues/{id}/tags/` show these, the promoted keys first, then the keys most
 * events carried; the rest are left out.
 */
export const TAG_DISTRIBUTION_KEYS = 100

/** The keys a distribution shows before any other: the facets and the promoted keys. */
const PROMOTED_KEYS = [...FACET_KINDS, ...TAG_KEY_BITS.keys()]

/** The table and key column a tag key is looked up in. */
const tagTable = (key: string) =>
  FACET_KINDS.has(key) ? raw('issue_facets WHERE kind') : raw('issue_tags WHERE key')

/** The SQL condition of one term over `issues i`. */
function condition(d: Dialect, t: SearchTerm): Statement {
  switch (t.kind) {
    case 'status': {
      const c =
        t.status === 'for_review'
          ? sql`(i.for_review = 1 AND i.status = 'unresolved')`
          : sql`i.status = ${t.status}`
      return t.negated ? sql`NOT ${c}` : c
    }
    case 'tag': {
      const exact = t.values.filter((v) => !isWildcard(v))
      const patterns = t.values.filter(isWildcard).map((v) => wildcard(d, v))
      const alternatives = [
        ...(exact.length > 0
          ? [
              sql`value IN (${join(
                exact.map((v) => sql`${v}`),
                ', ',
              )})`,
            ]
          : []),
        ...patterns,
      ]
      if (patterns.length > 0) {
        // A pattern is tested against the issue's own values of the key, issue by issue in the
        // sort order, until the page is full: the `IN` form tested it against every value of
        // the key in the project first (900,000 `url` rows at --scale: 150–350 ms), however
        // many issues match.
        const c = sql`EXISTS (SELECT 1 FROM ${tagTable(t.key)} = ${t.key} AND issue_id = i.id
          AND (${join(alternatives, ' OR ')}))`
        return t.negated ? sql`NOT ${c}` : c
      }
      const ids = sql`SELECT issue_id FROM ${tagTable(t.key)} = ${t.key} AND (${join(alternatives, ' OR ')})`
      return t.negated ? sql`i.id NOT IN (${ids})` : sql`i.id IN (${ids})`
    }
    case 'has': {
      // A promoted key is a bit of the issue's own row (store/tag-key-mask.ts): a negation
      // walks every issue, and a probe of `issue_tags` each (2.9 M rows at --scale) read a
      // page or two per issue. Other keys: a primary-key prefix lookup per issue walked (`IN`
      // would list every value of the key).
      const bit = FACET_KINDS.has(t.key) ? undefined : TAG_KEY_BITS.get(t.key)
      if (bit !== undefined)
        return sql`(i.tag_keys & ${raw(String(bit))}) ${raw(t.negated ? '=' : '<>')} 0`
      const c = sql`EXISTS (SELECT 1 FROM ${tagTable(t.key)} = ${t.key} AND issue_id = i.id)`
      return t.negated ? sql`NOT ${c}` : c
    }
    case 'time':
      return sql`${raw(`i.${t.field}`)} ${raw(t.op)} ${t.at}`
    case 'count':
      return sql`${raw(`i.${t.field}`)} ${raw(t.op)} ${t.n}`
    case 'text':
      return textIn(d, t.text)
  }
}

/** The search reads, written once; only the wildcard and text conditions differ per dialect. */
export function issueSearchQueries(db: SqlPort): IssueSearchStore {
  return {
    searchIssues: async (projectId, query, sort, page) => {
      const col = raw(SORT_COLUMN[sort])
      const where = [
        sql`i.project_id = ${projectId}`,
        ...query.terms.map((t) => condition(db.dialect, t)),
      ]
      const after = decodeCursor(page.cursor)
      if (after !== undefined)
        where.push(sql`(${col} < ${after[0]} OR (${col} = ${after[0]} AND i.id < ${after[1]}))`)
      const rows = await db.all<IssueRow>(
        sql`SELECT i.* FROM issues i WHERE ${join(where, ' AND ')}
            ORDER BY ${col} DESC, i.id DESC LIMIT ${page.limit + 1}`,
      )
      const issues = rows.slice(0, page.limit).map(toIssue)
      const last = issues[issues.length - 1]
      if (rows.length <= page.limit || last === undefined) return { issues }
      const key =
        sort === 'last_seen'
          ? last.lastSeen
          : sort === 'first_seen'
            ? last.firstSeen
            : sort === 'times_seen'
              ? last.timesSeen
              : last.users
      return { issues, next: `${key}:${last.id}` }
    },

    tagDistribution: async (issueId, top) => {
      // Per key its count and sum, an aggregate over the issue's primary-key range that
      // needs no sort of the rows; of its keys the promoted ones (environment, release, the
      // keys of store/tag-key-mask.ts) first, then the most carried, at most
      // TAG_DISTRIBUTION_KEYS: an issue can hold any number of keys (50 per event, a new set
      // each event), and one top-N branch per key made the second read unbounded (SQLite
      // refused 500+ branches; PostgreSQL planned 11,000 in 5 s). Then each key's top values,
      // a top-N per key (a window over every row sorted every row: most of a big issue's rows
      // are its distinct users).
      const keys = await db.all<{
        key: string
        total: number | string
        distinct_values: number | string
      }>(
        sql`SELECT * FROM (SELECT key, SUM(times_seen) AS total, COUNT(*) AS distinct_values
            FROM issue_tags WHERE issue_id = ${issueId} GROUP BY key
            ORDER BY CASE WHEN key IN (${join(
              PROMOTED_KEYS.map((k) => sql`${k}`),
              ', ',
            )}) THEN 0 ELSE 1 END, SUM(times_seen) DESC, key
            LIMIT ${TAG_DISTRIBUTION_KEYS}) shown ORDER BY key`,
      )
      if (keys.length === 0) return []
      const tops = await db.all<{ key: string; value: string; times_seen: number | string }>(
        join(
          keys.map(
            (k, n) =>
              sql`SELECT * FROM (SELECT key, value, times_seen FROM issue_tags
                  WHERE issue_id = ${issueId} AND key = ${k.key}
                  ORDER BY times_seen DESC, value LIMIT ${top}) ${raw(`t${n}`)}`,
          ),
          ' UNION ALL ',
        ),
      )
      const byKey = new Map<string, TagDistribution>(
        keys.map((k) => [
          k.key,
          { key: k.key, total: Number(k.total), distinct: Number(k.distinct_values), top: [] },
        ]),
      )
      for (const r of tops)
        byKey.get(r.key)?.top.push({ value: r.value, count: Number(r.times_seen) })
      // UNION ALL keeps no order: each key's values are sorted again (at most `top` of them).
      const out = [...byKey.values()]
      for (const d of out)
        d.top.sort(
          (a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0),
        )
      return out
    },

    searchIssueEvents: async (issueId, query, page) => {
      const start = page.cursor !== undefined ? Number(page.cursor) : Number.MAX_SAFE_INTEGER
      let before = Number.isSafeInteger(start) ? start : 0
      const found: number[] = []
      let scanned = 0
      let exhausted = false
      while (found.length <= page.limit && scanned < EVENT_SCAN_LIMIT) {
        const batch = await db.all<{
          id: number
          search: string | null
          received: number
          level: string
          release: string | null
          environment: string | null
          component: string | null
        }>(
          sql`SELECT id, search, received, level, release, environment, component FROM events WHERE issue_id = ${issueId} AND id < ${before}
              ORDER BY id DESC LIMIT ${SCAN_BATCH}`,
        )
        for (const e of batch) {
          before = e.id
          scanned++
          if (eventMatches(query, e)) {
            found.push(e.id)
            if (found.length > page.limit) break
          }
        }
        if (batch.length < SCAN_BATCH) {
          exhausted = found.length <= page.limit
          break
        }
      }
      const ids = found.slice(0, page.limit)
      const rows =
        ids.length === 0
          ? []
          : await db.all<EventRow>(
              sql`SELECT * FROM events WHERE issue_id = ${issueId} AND id IN (${join(
                ids.map((id) => sql`${id}`),
                ', ',
              )}) ORDER BY id DESC`,
            )
      const events = rows.map(toEvent)
      if (found.length > page.limit) return { events, next: String(ids[ids.length - 1]) }
      // The scan budget ran out before the page filled: continue from the last event read.
      return exhausted ? { events } : { events, next: String(before) }
    },
  }
}
