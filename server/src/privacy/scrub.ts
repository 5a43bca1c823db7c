import { isObj, type Obj } from '../event/json.ts'
import { formatLogMessage, placeholders } from '../event/logentry-format.ts'
import type { LogEntry, NormalizedEvent, Stacktrace } from '../event/types.ts'
import { scrubGraphql } from './graphql.ts'
import {
  DEFAULT_DETECTORS,
  type Detector,
  EMAIL,
  EMAIL_MASK,
  FILTERED,
  IP_DETECTOR,
  JOIN,
  MIN_PASSWORD_IN_VALUE,
  MIN_SECRET_LENGTH,
  PASSWORD_IN_VALUE,
  SENSITIVE_KEY,
  SESSION_COOKIES,
  secretNameBefore,
  type ValueRule,
} from './patterns.ts'
import type { PrivacySettings } from './settings.ts'

/**
 * Server-side data scrubbing of one normalised event, before it is grouped or stored: the
 * values of sensitive keys and the secrets found inside strings become `[Filtered]`, and every
 * change leaves a remark in `_meta` (Sentry's shape: the event's path, then
 * `{"": {"rem": [[rule, "s"|"x"]]}}`), never the original value. Pure functions over the event;
 * bags are replaced, never mutated in place, because the normaliser may share them with the
 * raw payload.
 *
 * Cost (it runs on every event): one walk applies the key rules and collects the strings; the
 * value rules then each scan those strings once, joined into one text, and only when one of
 * them finds something does a second walk apply that rule string by string. Nothing is copied
 * when nothing changes. An event without secrets costs one walk and a few scans.
 */

/** A settings object prepared for scrubbing (regexes built once per settings). */
export interface ScrubPolicy {
  readonly on: boolean
  /** The project scrubs data (`scrub_data`; `on` is also set by the IP setting alone). */
  readonly scrub: boolean
  readonly defaults: boolean
  /** The project's additional sensitive fields, one case-insensitive regex. */
  readonly sensitive: RegExp | undefined
  /** Safe fields, lowercased. */
  readonly safe: ReadonlySet<string>
  readonly scrubIp: boolean
  /** The value rules, in the order they apply. */
  readonly valueRules: readonly ValueRule[]
  /** The same rules, grouped for the scan of an event's joined strings. */
  readonly detectors: readonly Detector[]
  /** Strings shorter than this no value rule can change. */
  readonly minLength: number
}

/** Builds the scrub policy of a settings object. */
export function scrubPolicy(s: PrivacySettings): ScrubPolicy {
  const detectors = [
    ...(s.scrub && s.scrubDefaults ? DEFAULT_DETECTORS : []),
    ...(s.scrubIp ? [IP_DETECTOR] : []),
  ]
  const fields = s.sensitiveFields.map((f) => f.trim()).filter((f) => f !== '')
  return {
    on: s.scrub || s.scrubIp,
    scrub: s.scrub,
    defaults: s.scrub && s.scrubDefaults,
    sensitive:
      s.scrub && fields.length > 0
        ? new RegExp(fields.map((f) => f.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')).join('|'), 'i')
        : undefined,
    safe: new Set(s.safeFields.map((f) => f.trim().toLowerCase())),
    scrubIp: s.scrubIp,
    valueRules: detectors.flatMap((d) => d.rules).sort((a, b) => a.order - b.order),
    detectors,
    minLength: s.scrubIp ? 2 : MIN_SECRET_LENGTH,
  }
}

/**
 * A scrubbed form or query value, encoded again, but with the markers the rules write
 * (`[Filtered]`, `[ip]`, `[email]`) left readable, as Sentry shows a scrubbed pair: brackets
 * need no encoding in a form value, and decoding gives the same text either way.
 */
function encodeFormValue(v: string): string {
  return encodeURIComponent(v).replace(/%5B(Filtered|ip|email)%5D/g, '[$1]')
}

/** A key naming a cookie header: `Cookie`, `Set-Cookie`, or an attribute ending in either. */
const COOKIE_KEY = /(?:^|[._-])(?:set-)?cookie$/i
/** {@link COOKIE_KEY}, with the regex run only on keys whose sixth-last letter is a `c`. */
const isCookieKey = (k: string): boolean =>
  k.length >= 6 && (k.charCodeAt(k.length - 6) | 0x20) === 99 && COOKIE_KEY.test(k)

/** A command-line option, read with the value after it (see `Scrubber.list`). */
const OPTION = /^--?[A-Za-z][\w.-]{0,100}$/
/** An item of a list of pairs: a two-item list whose first item is a string. */
const isPair = (x: unknown): boolean =>
  Array.isArray(x) && x.length === 2 && typeof x[0] === 'string'
/** A string in a Python repr's quotes, the quotes apart (`'…'`, `"…"`, `b'…'`). */
const QUOTED = /^(b?(['"]))([\s\S]*)(\2)$/

/** Keys seen before and whether the default key rule filters them: keys repeat across events. */
const keyVerdicts = new Map<string, boolean>()

function defaultKeyRule(key: string): boolean {
  // The shortest key the rule matches is `otp`.
  if (key.length < 3) return false
  let v = keyVerdicts.get(key)
  if (v === undefined) {
    v = SENSITIVE_KEY.test(key)
    // Bounded: client keys are arbitrary; a full cache starts over.
    if (keyVerdicts.size >= 10_000) keyVerdicts.clear()
    if (key.length <= 100) keyVerdicts.set(key, v)
  }
  return v
}

/** Remarks kept per event; the rest are counted in one summary remark. */
const MAX_REMARKS = 200

type Path = (string | number)[]

/** The remarks of one event, built as Sentry's nested `_meta`. */
export class Remarks {
  readonly meta: Obj = {}
  count = 0

  add(path: readonly (string | number)[], rule: string, kind: 's' | 'x'): void {
    this.count++
    if (this.count > MAX_REMARKS) {
      this.meta[''] = { rem: [[`${this.count - MAX_REMARKS} more`, kind]] }
      return
    }
    let node = this.meta
    for (const p of path) {
      const k = String(p)
      const found = Object.hasOwn(node, k) ? node[k] : undefined
      const next: Obj = isObj(found) ? found : {}
      if (next !== found) node[k] = next
      node = next
    }
    const here = isObj(node['']) ? node[''] : {}
    const rem = Array.isArray(here['rem']) ? here['rem'] : []
    if (!rem.some((r) => Array.isArray(r) && r[0] === rule)) rem.push([rule, kind])
    here['rem'] = rem
    node[''] = here
  }
}

/**
 * Walks client values with one policy, recording remarks under the current path. Object keys
 * get the key rules; safe fields and everything below them are left. Strings are collected
 * (first walk: `texts`) or get the value rules found to apply (second walk: `rules`).
 */
class Scrubber {
  readonly path: Path = []
  readonly p: ScrubPolicy
  readonly remarks: Remarks
  /** The first walk's strings that a value rule could change; undefined in the second walk. */
  texts: string[] | undefined = []
  /** The value rules the second walk applies. */
  rules: readonly ValueRule[] = []
  /** True while a frame's source lines are walked (a rule's `keepInCode` applies). */
  inCode = false
  /**
   * Whether the field walked now takes Relay's password rule on its values
   * ({@link PASSWORD_IN_VALUE}: a string that mentions a secret is filtered whole). False for
   * what Relay's default scrubbing leaves (an exception's value, the log message's text) and
   * for names and texts a user reads that this server scrubs beyond Relay (source lines,
   * `transaction`, `culprit`, the fingerprint, the user's id, the fields of structured contexts):
   * there the value rules replace only what they match.
   */
  whole = true
  /** The first walk's strings that {@link PASSWORD_IN_VALUE} could filter (`whole` fields). */
  wholeTexts: string[] | undefined = []
  /** The second walk filters `whole` strings that {@link PASSWORD_IN_VALUE} matches. */
  wholeRule = false

  constructor(p: ScrubPolicy, remarks: Remarks) {
    this.p = p
    this.remarks = remarks
    if (!p.defaults) this.wholeTexts = undefined
  }

  /** `walk` with {@link whole} off: a field a user reads as a name or a message. */
  named<T>(walk: () => T): T {
    const was = this.whole
    this.whole = false
    try {
      return walk()
    } finally {
      this.whole = was
    }
  }

  /** The rule that filters a key's whole value, if any. */
  keyRule(key: string): string | undefined {
    if (!this.p.defaults && this.p.sensitive === undefined) return undefined
    if (this.p.defaults && defaultKeyRule(key)) return '@password'
    if (this.p.sensitive?.test(key) === true) return 'sensitive_fields'
    return undefined
  }

  isSafe(key: string): boolean {
    return this.p.safe.size > 0 && this.p.safe.has(key.toLowerCase())
  }

  filtered(rule: string): string {
    this.remarks.add(this.path, rule, 's')
    return FILTERED
  }

  /**
   * A string: the project's sensitive words filter it whole (first walk); else it is collected
   * for the value rules' scan (first walk) or given the rules that scan found (second walk).
   */
  str(s: string): string {
    if (s.length < 2) return s
    const texts = this.texts
    if (texts !== undefined) {
      if (s.length >= 4 && this.p.sensitive?.test(s) === true)
        return s === FILTERED ? s : this.filtered('sensitive_fields')
      if (s.length >= this.p.minLength) texts.push(s)
      if (this.whole && s.length >= MIN_PASSWORD_IN_VALUE) this.wholeTexts?.push(s)
      return s
    }
    if (this.wholeRule && this.whole && PASSWORD_IN_VALUE.test(s)) return this.filtered('@password')
    let out = s
    for (const rule of this.rules) {
      if (!rule.find(out)) continue
      rule.re.lastIndex = 0
      let hit = false
      out = out.replace(rule.re, (m: string, ...rest: unknown[]) => {
        // The groups come before the match's offset (a number); one that took no part is ''.
        const end = rest.findIndex((g) => typeof g === 'number')
        const groups = rest.slice(0, end).map((g) => (typeof g === 'string' ? g : ''))
        if (this.inCode && rule.keepInCode !== undefined) {
          const text = rest[end + 1]
          const before = typeof text === 'string' ? text.slice(0, rest[end] as number) : ''
          if (rule.keepInCode(before, ...groups)) return m
        }
        const r = rule.replace(m, ...groups)
        if (r === undefined) return m
        hit = true
        return r
      })
      if (hit) this.remarks.add(this.path, rule.id, 's')
    }
    return out
  }

  /** Any client value: objects by key, arrays by item, strings by value, numbers as text. */
  any(v: unknown): unknown {
    if (typeof v === 'string') return this.str(v)
    if (typeof v === 'number') {
      // A card number sent as a JSON number.
      if (this.p.defaults && Number.isInteger(v) && Math.abs(v) >= 1e12) {
        const s = this.str(String(v))
        return s === String(v) ? v : s
      }
      return v
    }
    if (Array.isArray(v)) return this.list(v)
    if (isObj(v)) return this.obj(v)
    return v
  }

  /**
   * Whether a string only needs collecting (first walk, no sensitive words): then it is pushed
   * without its path, which only a remark needs.
   */
  collected(s: string): boolean {
    const texts = this.texts
    if (texts === undefined || this.p.sensitive !== undefined) return false
    if (s.length >= this.p.minLength) texts.push(s)
    if (this.whole && s.length >= MIN_PASSWORD_IN_VALUE) this.wholeTexts?.push(s)
    return true
  }

  /**
   * An array: a list of pairs (every item a two-item list whose first item is a string: an
   * ASGI scope's headers `[["b'x-api-key'", "…"], …]` in frame variables) pair by pair, each
   * value judged under its pair's name as Relay's `process_pairlist` does; an option and its
   * value alone (`["--password", "…"]` in an argument list; Relay would read two values) by the
   * option's name; else item by item, so `["auth", "prod"]` or `["A_SECRET=…", "HOME=/root"]`
   * are values. `pairs` false: a list that is never read as pairs (source lines, a fingerprint,
   * whose change would regroup the event).
   */
  list(v: readonly unknown[], pairs = true): unknown[] {
    if (pairs && v.length > 0 && v.every(isPair)) return this.pairList(v as [string, unknown][])
    const key = v[0]
    if (pairs && v.length === 2 && typeof key === 'string' && OPTION.test(key)) {
      if (this.isSafe(key)) return v as unknown[]
      const value = v[1]
      const rule = this.keyRule(key)
      if (rule !== undefined && value !== null && value !== '' && value !== FILTERED) {
        this.path.push(1)
        const filtered = this.filtered(rule)
        this.path.pop()
        return [key, filtered]
      }
    }
    let out: unknown[] | undefined
    for (let i = 0; i < v.length; i++) {
      const item = v[i]
      if (typeof item === 'string' && this.collected(item)) continue
      this.path.push(i)
      const x = this.any(item)
      this.path.pop()
      if (x !== v[i]) {
        out ??= v.slice()
        out[i] = x
      }
    }
    return out ?? (v as unknown[])
  }

  /** A list of `[name, value]` pairs: each value as a keyed value (see {@link list}). */
  pairList(v: readonly [string, unknown][]): unknown[] {
    let out: unknown[] | undefined
    for (let i = 0; i < v.length; i++) {
      const [name, value] = v[i] as [string, unknown]
      this.path.push(i)
      const x = this.entry(name, value, false, 1)
      this.path.pop()
      if (x !== value) {
        out ??= v.slice()
        out[i] = [name, x]
      }
    }
    return out ?? (v as unknown[])
  }

  obj(v: Obj, cookies = false): Obj {
    let out: Obj | undefined
    for (const k in v) {
      if (!Object.hasOwn(v, k)) continue
      const x = this.entry(k, v[k], cookies)
      if (x !== v[k]) {
        out ??= { ...v }
        out[k] = x
      }
    }
    return out ?? v
  }

  /** One keyed value: filtered whole when its key is sensitive, else walked. */
  entry(k: string, value: unknown, cookies = false, at: string | number = k): unknown {
    if (value === null || value === '' || value === FILTERED || this.isSafe(k)) return value
    const rule =
      cookies && this.p.defaults && SESSION_COOKIES.has(k.toLowerCase())
        ? '@cookie'
        : this.keyRule(k)
    // A cookie header under its own name anywhere (an OpenTelemetry attribute such as
    // `http.request.header.cookie`, a `Cookie` key in a bag): read cookie by cookie.
    const cookie = rule === undefined && typeof value === 'string' && isCookieKey(k)
    if (rule === undefined && !cookie && typeof value === 'string' && this.collected(value))
      return value
    this.path.push(at)
    try {
      if (rule !== undefined) return this.filtered(rule)
      if (cookie) return this.cookieString(value as string)
      return this.any(value)
    } finally {
      this.path.pop()
    }
  }

  /** `[key, value]` pairs (headers, cookies, query strings as SDKs send them) or an object. */
  pairs(v: unknown, cookies = false): unknown {
    if (isObj(v)) return this.obj(v, cookies)
    if (!Array.isArray(v)) return this.any(v)
    let out: unknown[] | undefined
    for (let i = 0; i < v.length; i++) {
      const pair = v[i]
      let x: unknown = pair
      if (Array.isArray(pair) && pair.length === 2 && typeof pair[0] === 'string') {
        // The remark's path names the pair's value by position, as Relay's (`0.1`).
        this.path.push(i)
        const val = this.entry(pair[0], pair[1], cookies, 1)
        this.path.pop()
        if (val !== pair[1]) x = [pair[0], val]
      } else {
        this.path.push(i)
        x = this.any(pair)
        this.path.pop()
      }
      if (x !== pair) {
        out ??= v.slice()
        out[i] = x
      }
    }
    return out ?? v
  }

  /**
   * A `name=value; …` cookie string, each value judged by its name; a part without `=` (no
   * cookie, whatever the client put there) by the value rules.
   */
  cookieString(s: string): string {
    // A Python repr of the header (`'a=1; b=2'`, `b'…'`), as frame variables hold it.
    const quoted = QUOTED.exec(s)
    if (quoted !== null) {
      const [, open = '', , inner = '', close = ''] = quoted
      const x = this.cookieString(inner)
      return x === inner ? s : `${open}${x}${close}`
    }
    let changed = false
    const parts = s.split(';').map((part) => {
      const eq = part.indexOf('=')
      if (eq < 0) {
        const x = this.str(part)
        if (x !== part) changed = true
        return x
      }
      const name = part.slice(0, eq).trim()
      const value = part.slice(eq + 1)
      const x = this.entry(name, value, true)
      if (x === value) return part
      changed = true
      return `${part.slice(0, eq)}=${String(x)}`
    })
    return changed ? parts.join(';') : s
  }

  /** A query or form body as a string (`a=1&b=2`): each value judged by its key. */
  formString(s: string): string {
    if (!s.includes('=') || /\s/.test(s.trim())) return this.str(s)
    let changed = false
    const parts = s.split('&').map((part) => {
      const eq = part.indexOf('=')
      if (eq < 0) return part
      let name: string
      let value: string
      try {
        name = decodeURIComponent(part.slice(0, eq).replaceAll('+', ' '))
        value = decodeURIComponent(part.slice(eq + 1).replaceAll('+', ' '))
      } catch {
        return part
      }
      const x = this.entry(name, value)
      if (x === value) return part
      changed = true
      return `${part.slice(0, eq)}=${encodeFormValue(String(x))}`
    })
    return changed ? parts.join('&') : s
  }

  /** A request body: a JSON or form-encoded string is parsed and scrubbed by key. */
  body(v: unknown): unknown {
    if (typeof v !== 'string') return this.any(v)
    const t = v.trimStart()
    if (t.startsWith('{') || t.startsWith('[')) {
      let parsed: unknown
      try {
        parsed = JSON.parse(v)
      } catch {
        return this.str(v)
      }
      const x = this.any(parsed)
      return x === parsed ? v : JSON.stringify(x)
    }
    return this.formString(v)
  }

  /**
   * `request.headers` and the response context's: `Cookie` and `Set-Cookie` parsed cookie by
   * cookie, `User-Agent` left as it is (filters need it).
   */
  headers(v: unknown): unknown {
    const cookieAt = (at: string | number, c: string): string => {
      this.path.push(at)
      const x = this.cookieString(c)
      this.path.pop()
      return x
    }
    const one = (k: string, value: unknown): unknown => {
      const lower = k.toLowerCase()
      if (lower === 'user-agent' || this.isSafe(k)) return value
      if ((lower === 'cookie' || lower === 'set-cookie') && this.keyRule(k) === undefined) {
        if (typeof value === 'string') return cookieAt(k, value)
        // Node gives `Set-Cookie` as a list of strings, one per cookie.
        if (Array.isArray(value) && value.every((c) => typeof c === 'string')) {
          this.path.push(k)
          const x = value.map((c: string, i) => cookieAt(i, c))
          this.path.pop()
          return x.every((c, i) => c === value[i]) ? value : x
        }
      }
      return this.entry(k, value)
    }
    if (isObj(v)) {
      let out: Obj | undefined
      for (const k in v) {
        if (!Object.hasOwn(v, k)) continue
        const x = one(k, v[k])
        if (x !== v[k]) {
          out ??= { ...v }
          out[k] = x
        }
      }
      return out ?? v
    }
    // Not a map or pairs, as a client may send: a string is read as a body would be (JSON or
    // `a=1&b=2` by key, else by value), anything else walked by value, never kept unread.
    if (typeof v === 'string') return this.body(v)
    if (!Array.isArray(v)) return this.any(v)
    let out: unknown[] | undefined
    for (let i = 0; i < v.length; i++) {
      const pair = v[i]
      this.path.push(i)
      const isPair = Array.isArray(pair) && pair.length === 2 && typeof pair[0] === 'string'
      const x = isPair ? one(pair[0], pair[1]) : this.any(pair)
      this.path.pop()
      if (isPair ? x !== pair[1] : x !== pair) {
        out ??= v.slice()
        out[i] = isPair ? [pair[0], x] : x
      }
    }
    return out ?? v
  }

  /** `obj` under one more path segment. */
  objAt(k: string | number, v: Obj): Obj {
    this.path.push(k)
    const x = this.obj(v)
    this.path.pop()
    return x
  }

  /** `str` under one more path segment. */
  strAt(k: string | number, v: string): string {
    this.path.push(k)
    const x = this.str(v)
    this.path.pop()
    return x
  }

  /** `list` under one more path segment. */
  listAt(k: string | number, v: readonly unknown[], pairs = true): unknown[] {
    this.path.push(k)
    const x = this.list(v, pairs)
    this.path.pop()
    return x
  }
}

/** Known IP fields removed when a project stores no IP addresses (Relay's list). */
function removeIpFields(event: NormalizedEvent, remarks: Remarks): void {
  const user = event.user
  if (user !== undefined && user['ip_address'] !== undefined) {
    const { ip_address: _gone, ...rest } = user
    event.user = rest
    remarks.add(['user', 'ip_address'], '@ip', 'x')
  }
  const request = event.request
  const env = request?.['env']
  if (request !== undefined && isObj(env) && env['REMOTE_ADDR'] !== undefined) {
    const { REMOTE_ADDR: _gone, ...rest } = env
    event.request = { ...request, env: rest }
    remarks.add(['request', 'env', 'REMOTE_ADDR'], '@ip', 'x')
  }
}

/**
 * Scrubs a normalised event in place (its bags replaced where something changed) and the
 * unknown top-level keys kept beside it (`extra`, keyed by name; `debug_meta` and `modules`
 * are never touched). Returns the remarks, or undefined when nothing was removed.
 */
export function scrubEvent(
  event: NormalizedEvent,
  unknownKeys: Obj,
  p: ScrubPolicy,
): Obj | undefined {
  if (!p.on) return undefined
  const remarks = new Remarks()
  if (p.scrubIp) removeIpFields(event, remarks)
  if (p.scrub) scrubGraphql(event, (path, rule, kind) => remarks.add(path, rule, kind))
  const s = new Scrubber(p, remarks)
  walkEvent(s, event, unknownKeys)
  const texts = s.texts
  let found: Set<ValueRule> | undefined
  if (texts !== undefined && texts.length > 0 && p.detectors.length > 0) {
    const joined = texts.join(JOIN)
    for (const d of p.detectors) {
      if (!d.scan(joined)) continue
      found ??= new Set()
      for (const r of d.rules) found.add(r)
    }
  }
  // Only the strings of fields that take it: an event's source lines are most of its text.
  const wholeTexts = s.wholeTexts
  const whole =
    wholeTexts !== undefined &&
    wholeTexts.length > 0 &&
    PASSWORD_IN_VALUE.test(wholeTexts.join(JOIN))
  if (found !== undefined || whole) {
    s.texts = undefined
    s.wholeTexts = undefined
    s.wholeRule = whole
    const hit = found
    s.rules = hit === undefined ? [] : p.valueRules.filter((r) => hit.has(r))
    walkEvent(s, event, unknownKeys)
  }
  return remarks.count === 0 ? undefined : remarks.meta
}

/** The frames of one stack trace: `vars` by key, the source lines by value. */
function walkFrames(s: Scrubber, st: Stacktrace | undefined): void {
  if (st === undefined) return
  const path = s.path
  path.push('frames')
  for (let i = 0; i < st.frames.length; i++) {
    const f = st.frames[i]
    if (f === undefined) continue
    path.push(i)
    let next = f
    if (f.vars !== undefined) {
      const v = s.objAt('vars', f.vars)
      if (v !== f.vars) {
        next = { ...f }
        next.vars = v
      }
    }
    s.inCode = true
    s.whole = false
    if (f.context_line !== undefined) {
      const v = s.strAt('context_line', f.context_line)
      if (v !== f.context_line) {
        if (next === f) next = { ...f }
        next.context_line = v
      }
    }
    if (f.pre_context !== undefined) {
      const v = s.listAt('pre_context', f.pre_context, false)
      if (v !== f.pre_context) {
        if (next === f) next = { ...f }
        next.pre_context = v as string[]
      }
    }
    if (f.post_context !== undefined) {
      const v = s.listAt('post_context', f.post_context, false)
      if (v !== f.post_context) {
        if (next === f) next = { ...f }
        next.post_context = v as string[]
      }
    }
    s.inCode = false
    s.whole = true
    if (next !== f) st.frames[i] = next
    path.pop()
  }
  path.pop()
}

/** Each own key of `o` (null and undefined left) through `each`, under `name` in the path. */
function walkKeys(
  s: Scrubber,
  o: Obj,
  name: string,
  each: (k: string, v: unknown) => unknown,
): Obj {
  let next: Obj | undefined
  s.path.push(name)
  for (const k in o) {
    if (!Object.hasOwn(o, k)) continue
    const v = o[k]
    if (v === undefined || v === null) continue
    const x = each(k, v)
    if (x !== v) {
      next ??= { ...o }
      next[k] = x
    }
  }
  s.path.pop()
  return next ?? o
}

/**
 * `contexts`: each by key, and the `response` context (Sentry's: the answer the failing request
 * got) read as a request is, so a `Set-Cookie` session cookie is filtered by its name.
 */
function walkContexts(s: Scrubber, contexts: Obj): Obj {
  return walkKeys(s, contexts, 'contexts', (k, v) => {
    if (k === 'response' && isObj(v)) return walkHttp(s, v, k)
    if (!isObj(v) || !STRUCTURED_CONTEXTS.has(typeof v['type'] === 'string' ? v['type'] : k))
      return s.entry(k, v)
    return s.named(() => s.entry(k, v))
  })
}

/**
 * The contexts whose fields Sentry's protocol defines (device, OS, runtime, app, browser, GPU,
 * trace …): names and versions a user reads, which Relay's password rule leaves (its schema
 * marks few of their fields as personal data). Their keys are judged as any other's, and the
 * value rules replace what they match; a custom context is free-form data, and so are `otel`
 * (an OpenTelemetry record's attributes) and `state` (a Redux store's state).
 */
const STRUCTURED_CONTEXTS: ReadonlySet<string> = new Set([
  'device',
  'os',
  'runtime',
  'app',
  'browser',
  'gpu',
  'trace',
  'profile',
  'replay',
  'monitor',
  'cloud_resource',
  'culture',
  'flags',
  'reprocessing',
  'performance_score',
  'nel',
  'ota_updates',
  'unity',
  'memory_info',
  'spring',
])

/**
 * `request`, or the response context: headers, cookies, query and body each parsed as the SDKs
 * send them.
 */
function walkHttp(s: Scrubber, o: Obj, name: string): Obj {
  return walkKeys(s, o, name, (k, v) => {
    // The rest (`url`, `method`, a response's `status_code`, unknown keys) by key, as a bag's.
    if (!HTTP_PARTS.has(k)) return s.entry(k, v)
    s.path.push(k)
    let x: unknown
    switch (k) {
      case 'headers':
        x = s.headers(v)
        break
      case 'cookies':
        x = typeof v === 'string' ? s.cookieString(v) : s.pairs(v, true)
        break
      case 'query_string':
        x = typeof v === 'string' ? s.formString(v) : s.pairs(v)
        break
      case 'data':
        x = s.body(v)
        break
      default: // env
        x = s.pairs(v)
    }
    s.path.pop()
    return x
  })
}

/** The parts of a request (and a response context) read in their own way: see walkHttp. */
const HTTP_PARTS: ReadonlySet<string> = new Set([
  'headers',
  'cookies',
  'query_string',
  'data',
  'env',
])

/**
 * The parameters a log template puts right after a secret's name (`token=%s`, `password {}`):
 * each is the secret itself, so it is filtered (rule `@password`) although nothing in it says
 * so, and so is its place in the rendered text (rendered again from the filtered parameters
 * when that reproduces what was sent, else each occurrence replaced). Beyond Relay, which
 * filters the template's `token=%s` but leaves the parameter and the rendered text as sent.
 * First walk only, where the template is still as sent.
 */
function secretParams(s: Scrubber, le: LogEntry): LogEntry {
  const template = le.message
  const params = le.params
  if (template === undefined || params === undefined) return le
  // Positions in a list of parameters, or names in a mapping (`%(pw)s`).
  const has = (arg: number | string): boolean =>
    Array.isArray(params)
      ? typeof arg === 'number' && arg < params.length
      : typeof arg === 'string' && Object.hasOwn(params, arg)
  const secret = new Set<number | string>()
  for (const p of placeholders(template))
    if (has(p.arg) && secretNameBefore(template, p.at)) secret.add(p.arg)
  if (secret.size === 0) return le
  const path = s.path
  path.push('logentry', 'params')
  const filter = (k: number | string, v: unknown): unknown => {
    if (!secret.has(k) || v === FILTERED || v === null) return v
    path.push(k)
    const out = s.filtered('@password')
    path.pop()
    return out
  }
  // fromEntries defines own keys: a parameter named `__proto__` stays a plain key.
  const filtered = Array.isArray(params)
    ? params.map((v, i) => filter(i, v))
    : Object.fromEntries(Object.entries(params).map(([k, v]) => [k, filter(k, v)]))
  path.pop()
  let formatted = le.formatted
  if (formatted !== undefined) {
    const again =
      formatLogMessage(template, params) === formatted
        ? formatLogMessage(template, filtered)
        : undefined
    let out = again ?? formatted
    if (again === undefined)
      for (const i of secret) {
        const v = Array.isArray(params) ? params[i as number] : params[i as string]
        const text = typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined
        if (text !== undefined && text.length >= 3 && text !== FILTERED)
          out = out.split(text).join(FILTERED)
      }
    if (out !== formatted) {
      path.push('formatted')
      s.remarks.add(path, '@password', 's')
      path.pop()
      formatted = out
    }
  }
  path.pop()
  return { ...le, params: filtered, ...(formatted !== undefined ? { formatted } : {}) }
}

/**
 * E-mail addresses in the log message's rendered text become `[email]` (rule `@email`), as
 * Relay's default scrubbing does to `logentry.formatted` (a replace-only rule there, since the
 * message is what a user reads). A plain message (no template rendered, or one equal to its
 * rendering) is that text too: Relay moves it into `formatted` before scrubbing. Elsewhere an
 * address is kept, as in Relay (`user.email`, tags, `extra`, an exception's value). First walk
 * only, like {@link secretParams}.
 */
function emailsInMessage(s: Scrubber, le: LogEntry): LogEntry {
  const { formatted, message } = le
  const plain = message !== undefined && (formatted === undefined || formatted === message)
  const f = formatted === undefined ? undefined : maskEmails(s, 'formatted', formatted)
  const m = plain ? maskEmails(s, 'message', message) : message
  return f === formatted && m === message
    ? le
    : {
        ...le,
        ...(m !== undefined ? { message: m } : {}),
        ...(f !== undefined ? { formatted: f } : {}),
      }
}

/** `text` (at `logentry.<key>`) with its e-mail addresses masked, and the remark if any. */
function maskEmails(s: Scrubber, key: string, text: string): string {
  if (!text.includes('@')) return text
  const out = text.replace(EMAIL, EMAIL_MASK)
  if (out !== text) {
    s.path.push('logentry', key)
    s.remarks.add(s.path, '@email', 's')
    s.path.pop()
    s.path.pop()
  }
  return out
}

/**
 * `user` by key; its `id` is an identifier the issue counts users by (an Auth0 id is
 * `auth0|…`), so the password rule does not filter it whole (Relay would: add `id` to the
 * project's safe fields there).
 */
function walkUser(s: Scrubber, user: Obj): Obj {
  return walkKeys(s, user, 'user', (k, v) =>
    k === 'id' ? s.named(() => s.entry(k, v)) : s.entry(k, v),
  )
}

/**
 * Top-level keys the normaliser keeps as sent that hold no personal data (Relay's schema marks
 * none of them): the binaries of a native crash, and `modules`, the installed packages and their
 * versions (`golang.org/x/oauth2`, `next-auth`: by name they would match the password rule).
 */
const NOT_CLIENT_DATA: ReadonlySet<string> = new Set(['debug_meta', 'modules'])

/** One walk over every field of an event that carries client data (see {@link scrubEvent}). */
function walkEvent(s: Scrubber, event: NormalizedEvent, unknownKeys: Obj): void {
  const path = s.path
  let le = event.logentry
  if (le !== undefined && s.texts !== undefined && s.p.defaults)
    le = emailsInMessage(s, secretParams(s, le))
  if (le !== undefined) {
    path.push('logentry')
    // The message is what a user reads (Relay leaves `logentry.formatted` to replace-only rules;
    // the template is the program's text): its parameters take the password rule, it does not.
    const message = s.named(() =>
      le.message === undefined ? undefined : s.strAt('message', le.message),
    )
    const formatted = s.named(() =>
      le.formatted === undefined ? undefined : s.strAt('formatted', le.formatted),
    )
    const params =
      le.params === undefined
        ? undefined
        : Array.isArray(le.params)
          ? s.listAt('params', le.params)
          : s.objAt('params', le.params)
    path.pop()
    if (message !== le.message || formatted !== le.formatted || params !== le.params) {
      const next = { ...le }
      if (message !== undefined) next.message = message
      if (formatted !== undefined) next.formatted = formatted
      if (params !== undefined) next.params = params
      event.logentry = next
    } else if (le !== event.logentry) event.logentry = le
  }
  const exc = event.exception
  if (exc !== undefined) {
    path.push('exception', 'values')
    for (let i = 0; i < exc.values.length; i++) {
      const e = exc.values[i]
      if (e === undefined) continue
      path.push(i)
      // Relay leaves an exception's value to the replace-only rules too.
      const value = e.value
      if (value !== undefined) e.value = s.named(() => s.strAt('value', value))
      const mech = e.mechanism
      if (mech !== undefined) {
        // The integration's free-form data and text, as any other databag (the mechanism is
        // normalisation's own copy, changed in place like the exception's value).
        path.push('mechanism')
        if (mech.data !== undefined) mech.data = s.objAt('data', mech.data)
        if (mech.description !== undefined)
          mech.description = s.strAt('description', mech.description)
        if (mech.help_link !== undefined) mech.help_link = s.strAt('help_link', mech.help_link)
        path.pop()
      }
      if (e.stacktrace !== undefined) {
        path.push('stacktrace')
        walkFrames(s, e.stacktrace)
        path.pop()
      }
      // The frames as the client sent them, kept beside source-mapped ones (or sent by the
      // client): the same variables and source lines, so the same rules.
      if (e.raw_stacktrace !== undefined) {
        path.push('raw_stacktrace')
        walkFrames(s, e.raw_stacktrace)
        path.pop()
      }
      path.pop()
    }
    path.length -= 2
  }
  if (event.stacktrace !== undefined) {
    path.push('stacktrace')
    walkFrames(s, event.stacktrace)
    path.pop()
  }
  const threads = event.threads?.values
  if (threads !== undefined) {
    path.push('threads', 'values')
    for (let i = 0; i < threads.length; i++) {
      const st = threads[i]?.stacktrace
      if (st === undefined) continue
      path.push(i, 'stacktrace')
      walkFrames(s, st)
      path.length -= 2
    }
    path.length -= 2
  }
  const crumbs = event.breadcrumbs?.values
  if (crumbs !== undefined) {
    path.push('breadcrumbs', 'values')
    for (let i = 0; i < crumbs.length; i++) {
      const b = crumbs[i]
      if (b === undefined) continue
      path.push(i)
      if (b.message !== undefined) b.message = s.strAt('message', b.message)
      if (b.data !== undefined) b.data = s.objAt('data', b.data)
      path.pop()
    }
    path.length -= 2
  }
  if (event.extra !== undefined) event.extra = s.objAt('extra', event.extra)
  // A host name, personal data to Relay too (its schema marks it `pii = "true"`): by value.
  if (event.server_name !== undefined) event.server_name = s.strAt('server_name', event.server_name)
  // Names, but often a raw URL path (`/reset/<token>`, a browser SDK's `url` source) that the
  // issue list shows as the culprit: by value, beyond Relay, which leaves both as sent.
  const { transaction, culprit, fingerprint } = event
  if (transaction !== undefined)
    event.transaction = s.named(() => s.strAt('transaction', transaction))
  if (culprit !== undefined) event.culprit = s.named(() => s.strAt('culprit', culprit))
  if (event.contexts !== undefined) event.contexts = walkContexts(s, event.contexts as Obj)
  if (event.user !== undefined) event.user = walkUser(s, event.user)
  const tags = event.tags
  let nextTags: [string, string][] | undefined
  path.push('tags')
  for (let i = 0; i < tags.length; i++) {
    const pair = tags[i] as [string, string]
    path.push(i)
    const v = s.entry(pair[0], pair[1])
    path.pop()
    if (v !== pair[1]) {
      nextTags ??= tags.slice()
      nextTags[i] = [pair[0], String(v)]
    }
  }
  path.pop()
  if (nextTags !== undefined) event.tags = nextTags
  if (fingerprint !== undefined)
    event.fingerprint = s.named(() => s.listAt('fingerprint', fingerprint, false) as string[])
  if (event.request !== undefined) event.request = walkHttp(s, event.request, 'request')
  for (const k in unknownKeys) {
    if (!Object.hasOwn(unknownKeys, k) || NOT_CLIENT_DATA.has(k)) continue
    const v = unknownKeys[k]
    const x = s.entry(k, v)
    if (x !== v) unknownKeys[k] = x
  }
}

/** One remark read back from `_meta`: the dotted path and the rules that changed it. */
export interface RemarkLine {
  path: string
  rules: string[]
  removed: boolean
}

/**
 * The remarks of a stored event's `_meta`, flattened for display (at most `max`). Reads
 * untrusted-shaped JSON defensively: only `rem` entries whose rule is a string count.
 */
export function remarkLines(meta: unknown, max = 200): RemarkLine[] {
  const out: RemarkLine[] = []
  const walk = (node: unknown, path: string[], depth: number): void => {
    if (!isObj(node) || depth > 40 || out.length >= max) return
    for (const k of Object.keys(node)) {
      if (out.length >= max) return
      const v = node[k]
      if (k === '') {
        const rem = isObj(v) && Array.isArray(v['rem']) ? v['rem'] : []
        const rules = rem.flatMap((r) =>
          Array.isArray(r) && typeof r[0] === 'string' ? [r[0]] : [],
        )
        if (rules.length > 0)
          out.push({
            path: path.join('.'),
            rules,
            removed: rem.some((r) => Array.isArray(r) && r[1] === 'x'),
          })
      } else walk(v, [...path, k], depth + 1)
    }
  }
  walk(meta, [], 0)
  return out
}
