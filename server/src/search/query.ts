/**
 * The search language of the issue list and of an issue's events, one parser for the API's
 * `?query=` and the page's search box (docs/search.md). Sentry's syntax, as users type it from
 * habit: `is:unresolved`, `key:value`, `!key:value`, `has:key`, `!has:key`, quoted values,
 * `*` wildcards, `key:[a, b]`, `firstSeen:-24h`, `lastSeen:+7d`, `age:-1h`, `times_seen:>100`,
 * `users:>=3`, and free text. Pure: no storage, no clock (the caller passes `now`).
 */

/** The `is:` states: the issue statuses and the For review queue. */
export const STATUSES = ['unresolved', 'resolved', 'ignored', 'for_review'] as const
/** One `is:` state. */
export type SearchStatus = (typeof STATUSES)[number]

/** A comparison of a numeric issue field (`times_seen:>100`). */
export type Comparison = '>' | '>=' | '<' | '<=' | '='

/** One condition of a query; a query matches when every condition does. */
export type SearchTerm =
  /** `at`: where the term starts, for the event search's refusal of issue-only terms. */
  | { kind: 'status'; status: SearchStatus; negated: boolean; at: number }
  /** `key:value` or `key:[a, b]` (any one of the values); values may hold `*` wildcards. */
  | { kind: 'tag'; key: string; values: string[]; negated: boolean }
  | { kind: 'has'; key: string; negated: boolean }
  /** A time bound of the issue (ms since the epoch). */
  | { kind: 'time'; field: 'first_seen' | 'last_seen'; op: Comparison; at: number }
  | { kind: 'count'; field: 'times_seen' | 'users'; op: Comparison; n: number; at: number }
  /** Case-insensitive substring of the indexed text. */
  | { kind: 'text'; text: string }

/** A parsed query: its conditions, in the order typed. */
export interface SearchQuery {
  terms: SearchTerm[]
}

/** A query that does not parse: where (0-based character offset) and what could not be read. */
export class QuerySyntaxError extends Error {
  readonly position: number
  readonly token: string
  constructor(message: string, position: number, token: string) {
    super(`${message} at position ${position}: ${JSON.stringify(token)}`)
    this.position = position
    this.token = token
  }
}

/** Longest query accepted (characters); the API refuses longer ones before parsing. */
export const MAX_QUERY_LENGTH = 1000
/** Most conditions in one query: each one is a clause of the SQL. */
export const MAX_TERMS = 20
/** Most values in one `key:[…]` list. */
export const MAX_LIST_VALUES = 20
/** Longest tag key (characters), as the ingest's bound (event-tags.ts). */
export const MAX_KEY_LENGTH = 32
/** Longest tag value (characters), as the ingest's bound (event-tags.ts). */
export const MAX_VALUE_LENGTH = 200

const KEY = /^[A-Za-z0-9_.-]+$/
const UNITS = new Map([
  ['s', 1e3],
  ['m', 60e3],
  ['h', 3600e3],
  ['d', 86400e3],
  ['w', 604800e3],
])
/**
 * Sentry's fields of the event's text (`message:`, `title:`, `error.type:`, `error.value:`):
 * read as free text, which holds the message, the exception types and values and the title.
 */
const TEXT_FIELDS = new Set(['message', 'title', 'error.type', 'error.value'])
// Maps, not object literals: a key typed by the user (`constructor:`, `__proto__:`) must not
// find Object.prototype's members.
const TIME_FIELDS = new Map<string, 'first_seen' | 'last_seen'>([
  ['firstseen', 'first_seen'],
  ['first_seen', 'first_seen'],
  ['age', 'first_seen'],
  ['lastseen', 'last_seen'],
  ['last_seen', 'last_seen'],
])
const COUNT_FIELDS = new Map<string, 'times_seen' | 'users'>([
  ['times_seen', 'times_seen'],
  ['timesseen', 'times_seen'],
  ['users', 'users'],
])

/** A value as read: its text, whether it was quoted, where it started. */
interface Value {
  text: string
  quoted: boolean
  at: number
}

/** A cursor over the query text. */
class Reader {
  i = 0
  readonly s: string
  constructor(s: string) {
    this.s = s
  }
  get done(): boolean {
    return this.i >= this.s.length
  }
  peek(): string {
    return this.s[this.i] ?? ''
  }
  skipSpace(): void {
    while (!this.done && /\s/.test(this.peek())) this.i++
  }
  /** The rest of the current whitespace-delimited word from `from`, for error messages. */
  wordAt(from: number): string {
    const m = /^\S*/.exec(this.s.slice(from))
    return (m?.[0] ?? '').slice(0, 40)
  }
  fail(message: string, at: number, token?: string): never {
    throw new QuerySyntaxError(message, at, token ?? this.wordAt(at))
  }
  /** A double-quoted string (`\"` and `\\` escape); `i` is at the opening quote. */
  quoted(): Value {
    const at = this.i
    this.i++
    let text = ''
    while (!this.done) {
      const c = this.peek()
      if (c === '\\' && this.i + 1 < this.s.length) {
        text += this.s[this.i + 1]
        this.i += 2
        continue
      }
      if (c === '"') {
        this.i++
        return { text, quoted: true, at }
      }
      text += c
      this.i++
    }
    return this.fail('unterminated quoted value', at, this.s.slice(at, at + 40))
  }
  /** A bare value: up to whitespace, or (inside a list) up to `,` or `]`. */
  bare(inList: boolean): Value {
    const at = this.i
    while (!this.done) {
      const c = this.peek()
      if (/\s/.test(c) || (inList && (c === ',' || c === ']'))) break
      this.i++
    }
    return { text: this.s.slice(at, this.i), quoted: false, at }
  }
  value(inList: boolean): Value {
    return this.peek() === '"' ? this.quoted() : this.bare(inList)
  }
}

const checkValue = (r: Reader, v: Value): string => {
  if (v.text.length > MAX_VALUE_LENGTH)
    r.fail(`value longer than ${MAX_VALUE_LENGTH} characters`, v.at)
  return v.text
}

/** `key:[a, b]`; `i` is at `[`. */
function list(r: Reader): string[] {
  const open = r.i
  r.i++
  const out: string[] = []
  for (;;) {
    r.skipSpace()
    if (r.done) r.fail('unterminated list', open)
    const v = r.value(true)
    if (v.text === '' && !v.quoted) r.fail('expected a value in the list', r.i)
    out.push(checkValue(r, v))
    if (out.length > MAX_LIST_VALUES) r.fail(`more than ${MAX_LIST_VALUES} values in a list`, v.at)
    r.skipSpace()
    if (r.done) r.fail('unterminated list', open)
    const c = r.peek()
    if (c === ',') {
      r.i++
      continue
    }
    if (c === ']') {
      r.i++
      if (!r.done && !/\s/.test(r.peek())) r.fail('expected a space after the list', r.i)
      return out
    }
    r.fail("expected ',' or ']' in the list", r.i)
  }
}

/** `-24h` (within the last 24 hours), `+7d` (longer ago), or `>`/`<` an ISO date or duration. */
function timeTerm(r: Reader, field: 'first_seen' | 'last_seen', v: Value, now: number): SearchTerm {
  const rel = /^([-+])(\d{1,6})([smhdw])$/.exec(v.text)
  if (rel !== null) {
    const ms = Number(rel[2]) * (UNITS.get(rel[3] as string) ?? 0)
    return rel[1] === '-'
      ? { kind: 'time', field, op: '>=', at: now - ms }
      : { kind: 'time', field, op: '<=', at: now - ms }
  }
  const abs = /^(>=|<=|>|<|=)?(.+)$/.exec(v.text)
  const op = (abs?.[1] ?? '=') as Comparison
  const date = abs?.[2] ?? ''
  const at = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(date)
    ? Date.parse(date.length === 10 ? `${date}T00:00:00Z` : date)
    : Number.NaN
  if (!Number.isFinite(at))
    r.fail('expected a time such as -24h, +7d or >2026-01-31', v.at, v.text.slice(0, 40))
  if (op === '=') return { kind: 'time', field, op: '>=', at }
  return { kind: 'time', field, op, at }
}

function countTerm(r: Reader, field: 'times_seen' | 'users', v: Value, at: number): SearchTerm {
  const m = /^(>=|<=|>|<|=)?(\d{1,15})$/.exec(v.text)
  if (m === null) r.fail('expected a number such as >100', v.at, v.text.slice(0, 40))
  return { kind: 'count', field, op: (m[1] ?? '=') as Comparison, n: Number(m[2]), at }
}

/** The values Sentry's boolean search keys take. */
const BOOLEANS: ReadonlyMap<string, boolean> = new Map([
  ['true', true],
  ['1', true],
  ['yes', true],
  ['false', false],
  ['0', false],
  ['no', false],
])

/** One `key:value` term; `i` is just past the colon. */
function keyed(r: Reader, key: string, keyAt: number, negated: boolean, now: number): SearchTerm {
  const lower = key.toLowerCase()
  // Sentry's `error.mechanism:auto.function.react.error_boundary`, read as the `mechanism` tag
  // (the thrown exception's; Sentry's term also matches a cause's, e.g. `chained`).
  if (lower === 'error.mechanism') return keyed(r, 'mechanism', keyAt, negated, now)
  if (r.done || /\s/.test(r.peek())) r.fail(`expected a value after '${key}:'`, keyAt)
  if (r.peek() === '[') {
    if (
      lower === 'is' ||
      lower === 'has' ||
      TIME_FIELDS.has(lower) ||
      COUNT_FIELDS.has(lower) ||
      TEXT_FIELDS.has(lower)
    )
      r.fail(`'${key}:' takes one value, not a list`, r.i)
    return { kind: 'tag', key, values: list(r), negated }
  }
  const v = r.value(false)
  if (v.quoted && !r.done && !/\s/.test(r.peek()))
    r.fail('expected a space after the quoted value', r.i)
  const text = checkValue(r, v)
  if (lower === 'is') {
    const s = text.toLowerCase()
    // Sentry's `is:unhandled`: events an SDK reported as not handled (the `handled` tag).
    if (s === 'unhandled') return { kind: 'tag', key: 'handled', values: ['no'], negated }
    if (!(STATUSES as readonly string[]).includes(s))
      r.fail(`unknown state (is: takes ${STATUSES.join(', ')}, unhandled)`, v.at, text.slice(0, 40))
    return { kind: 'status', status: s as SearchStatus, negated, at: keyAt }
  }
  if (lower === 'has') {
    if (!KEY.test(text) || text.length > MAX_KEY_LENGTH) r.fail('expected a tag key', v.at)
    return { kind: 'has', key: text, negated }
  }
  const time = TIME_FIELDS.get(lower)
  if (time !== undefined) {
    if (negated) r.fail(`'!' does not apply to '${key}:'`, keyAt - 1)
    return timeTerm(r, time, v, now)
  }
  const count = COUNT_FIELDS.get(lower)
  if (count !== undefined) {
    if (negated) r.fail(`'!' does not apply to '${key}:'`, keyAt - 1)
    return countTerm(r, count, v, keyAt)
  }
  if (text === '' && !v.quoted) r.fail(`expected a value after '${key}:'`, keyAt)
  // Sentry's `error.unhandled:true` and `error.handled:false`, read as the `handled` tag.
  if (lower === 'error.unhandled' || lower === 'error.handled') {
    const yes = BOOLEANS.get(text.toLowerCase())
    if (yes === undefined) r.fail(`'${key}:' takes true or false`, v.at, text.slice(0, 40))
    const handled = lower === 'error.handled' ? yes : !yes
    return { kind: 'tag', key: 'handled', values: [handled ? 'yes' : 'no'], negated }
  }
  if (TEXT_FIELDS.has(lower)) {
    if (negated) r.fail(`'!' does not apply to '${key}:'`, keyAt - 1)
    // Sentry's `message:*failed*` wildcards: a substring of the text either way.
    const bare = text.replace(/^\*+|\*+$/g, '')
    if (bare === '') r.fail(`expected a value after '${key}:'`, keyAt)
    return { kind: 'text', text: bare }
  }
  return { kind: 'tag', key, values: [text], negated }
}

/**
 * Parses a query. Throws {@link QuerySyntaxError} with the position and token it could not
 * read. `now` (ms) anchors relative times (`-24h`).
 */
export function parseQuery(input: string, now: number): SearchQuery {
  const r = new Reader(input)
  const terms: SearchTerm[] = []
  if (input.length > MAX_QUERY_LENGTH)
    r.fail(`query longer than ${MAX_QUERY_LENGTH} characters`, MAX_QUERY_LENGTH)
  for (;;) {
    r.skipSpace()
    if (r.done) break
    const start = r.i
    if (terms.length >= MAX_TERMS) r.fail(`more than ${MAX_TERMS} conditions`, start)
    if (r.peek() === '"') {
      const v = r.quoted()
      if (!r.done && !/\s/.test(r.peek())) r.fail('expected a space after the quoted text', r.i)
      if (v.text.trim() !== '') terms.push({ kind: 'text', text: checkValue(r, v) })
      continue
    }
    const negated = r.peek() === '!'
    const m = /^([A-Za-z0-9_.-]+):/.exec(input.slice(negated ? start + 1 : start))
    if (m !== null) {
      const key = m[1] as string
      const keyAt = negated ? start + 1 : start
      if (key.length > MAX_KEY_LENGTH)
        r.fail(`tag key longer than ${MAX_KEY_LENGTH} characters`, keyAt)
      r.i = keyAt + key.length + 1
      terms.push(keyed(r, key, keyAt, negated, now))
      continue
    }
    const word = r.bare(false)
    if (word.text.endsWith(':') || word.text.startsWith(':')) r.fail('expected key:value', start)
    terms.push({ kind: 'text', text: checkValue(r, word) })
  }
  return { terms }
}

/** Whether a value holds a `*` wildcard. */
export const isWildcard = (v: string): boolean => v.includes('*')

/**
 * Whether a tag value matches a query value (`*` any run of characters, case-sensitive, as
 * Sentry's tag search): the rule the stores' SQL renders and the event search runs in code.
 */
export function valueMatches(pattern: string, value: string): boolean {
  if (!isWildcard(pattern)) return pattern === value
  const parts = pattern.split('*')
  const head = parts[0] as string
  const tail = parts[parts.length - 1] as string
  if (!value.startsWith(head) || value.length < head.length + tail.length) return false
  let at = head.length
  for (const p of parts.slice(1, -1)) {
    const found = value.indexOf(p, at)
    if (found < 0) return false
    at = found + p.length
  }
  return value.endsWith(tail) && value.length - tail.length >= at
}
