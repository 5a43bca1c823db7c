import type { NormalizedEvent, Stacktrace } from '../event/types.ts'
import {
  DEFAULT_VALUE_RULES,
  FILTERED,
  IP_RULE,
  SENSITIVE_KEY,
  SESSION_COOKIES,
  stringFacts,
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
 */

/** A settings object prepared for scrubbing (regexes built once per settings). */
export interface ScrubPolicy {
  readonly on: boolean
  readonly defaults: boolean
  /** The project's additional sensitive fields, one case-insensitive regex. */
  readonly sensitive: RegExp | undefined
  /** Safe fields, lowercased. */
  readonly safe: ReadonlySet<string>
  readonly scrubIp: boolean
  readonly valueRules: readonly ValueRule[]
}

/** Builds the scrub policy of a settings object. */
export function scrubPolicy(s: PrivacySettings): ScrubPolicy {
  const valueRules = [
    ...(s.scrub && s.scrubDefaults ? DEFAULT_VALUE_RULES : []),
    ...(s.scrubIp ? [IP_RULE] : []),
  ]
  const fields = s.sensitiveFields.map((f) => f.trim()).filter((f) => f !== '')
  return {
    on: s.scrub || s.scrubIp,
    defaults: s.scrub && s.scrubDefaults,
    sensitive:
      s.scrub && fields.length > 0
        ? new RegExp(fields.map((f) => f.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')).join('|'), 'i')
        : undefined,
    safe: new Set(s.safeFields.map((f) => f.trim().toLowerCase())),
    scrubIp: s.scrubIp,
    valueRules,
  }
}

/** Keys seen before and whether the default key rule filters them: keys repeat across events. */
const keyVerdicts = new Map<string, boolean>()

function defaultKeyRule(key: string): boolean {
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
type Obj = Record<string, unknown>

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v)

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
 * Walks client values with one policy, recording remarks under the current path. Strings get
 * the value rules; object keys the key rules; safe fields and everything below them are left.
 */
class Scrubber {
  readonly path: Path = []
  readonly p: ScrubPolicy
  readonly remarks: Remarks

  constructor(p: ScrubPolicy, remarks: Remarks) {
    this.p = p
    this.remarks = remarks
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

  /** A string through the value rules (and the project's sensitive words, whole value). */
  str(s: string): string {
    if (s.length < 4) return s
    if (this.p.sensitive?.test(s) === true)
      return s === FILTERED ? s : this.filtered('sensitive_fields')
    const rules = this.p.valueRules
    if (rules.length === 0) return s
    const facts = stringFacts(s)
    if (facts === 0 && !s.includes('earer') && !s.includes('EARER')) return s
    let out = s
    for (const rule of rules) {
      if (!rule.guard(out, facts)) continue
      rule.re.lastIndex = 0
      if (!rule.re.test(out)) continue
      rule.re.lastIndex = 0
      let hit = false
      out = out.replace(rule.re, (m: string, ...rest: unknown[]) => {
        const groups = rest.filter((g): g is string => typeof g === 'string')
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

  list(v: readonly unknown[]): unknown[] {
    let out: unknown[] | undefined
    for (let i = 0; i < v.length; i++) {
      this.path.push(i)
      const x = this.any(v[i])
      this.path.pop()
      if (x !== v[i]) {
        out ??= v.slice()
        out[i] = x
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
  entry(k: string, value: unknown, cookies = false): unknown {
    if (this.isSafe(k)) return value
    this.path.push(k)
    try {
      if (value === null || value === '' || value === FILTERED) return value
      const rule =
        cookies && this.p.defaults && SESSION_COOKIES.has(k.toLowerCase())
          ? '@cookie'
          : this.keyRule(k)
      if (rule !== undefined) return this.filtered(rule)
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
        this.path.push(i)
        const val = this.entry(pair[0], pair[1], cookies)
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

  /** A `name=value; …` cookie string, each value judged by its name. */
  cookieString(s: string): string {
    let changed = false
    const parts = s.split(';').map((part) => {
      const eq = part.indexOf('=')
      if (eq < 0) return part
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
      return `${part.slice(0, eq)}=${encodeURIComponent(String(x))}`
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

  /** `request.headers`: `Cookie` parsed, `User-Agent` left as it is (filters need it). */
  headers(v: unknown): unknown {
    const one = (k: string, value: unknown): unknown => {
      const lower = k.toLowerCase()
      if (lower === 'user-agent' || this.isSafe(k)) return value
      if (lower === 'cookie' && typeof value === 'string' && this.keyRule(k) === undefined) {
        this.path.push(k)
        const x = this.cookieString(value)
        this.path.pop()
        return x
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
    if (!Array.isArray(v)) return v
    let out: unknown[] | undefined
    for (let i = 0; i < v.length; i++) {
      const pair = v[i]
      if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string') continue
      this.path.push(i)
      const x = one(pair[0], pair[1])
      this.path.pop()
      if (x !== pair[1]) {
        out ??= v.slice()
        out[i] = [pair[0], x]
      }
    }
    return out ?? v
  }

  /** Runs `f` with `segments` pushed on the path. */
  at<T>(segments: readonly (string | number)[], f: () => T): T {
    for (const s of segments) this.path.push(s)
    try {
      return f()
    } finally {
      this.path.length -= segments.length
    }
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
 * unknown top-level keys kept beside it (`extra`, keyed by name; `debug_meta` is never
 * touched). Returns the remarks, or undefined when nothing was removed.
 */
export function scrubEvent(
  event: NormalizedEvent,
  unknownKeys: Obj,
  p: ScrubPolicy,
): Obj | undefined {
  if (!p.on) return undefined
  const remarks = new Remarks()
  if (p.scrubIp) removeIpFields(event, remarks)
  const s = new Scrubber(p, remarks)
  const le = event.logentry
  if (le !== undefined) {
    const next = { ...le }
    if (le.message !== undefined)
      next.message = s.at(['logentry', 'message'], () => s.str(le.message as string))
    if (le.formatted !== undefined)
      next.formatted = s.at(['logentry', 'formatted'], () => s.str(le.formatted as string))
    if (le.params !== undefined)
      next.params = s.at(['logentry', 'params'], () => s.any(le.params)) as unknown[]
    event.logentry = next
  }
  const frames = (st: Stacktrace | undefined, base: Path): void => {
    if (st === undefined) return
    for (let i = 0; i < st.frames.length; i++) {
      const f = st.frames[i]
      if (f === undefined) continue
      let next = f
      const put = <K extends 'vars' | 'context_line' | 'pre_context' | 'post_context'>(
        k: K,
        v: unknown,
      ) => {
        if (v !== f[k]) {
          if (next === f) next = { ...f }
          next[k] = v as (typeof f)[K]
        }
      }
      const at = [...base, 'frames', i]
      if (f.vars !== undefined)
        put(
          'vars',
          s.at([...at, 'vars'], () => s.obj(f.vars as Obj)),
        )
      if (f.context_line !== undefined)
        put(
          'context_line',
          s.at([...at, 'context_line'], () => s.str(f.context_line as string)),
        )
      if (f.pre_context !== undefined)
        put(
          'pre_context',
          s.at([...at, 'pre_context'], () => s.list(f.pre_context as string[])),
        )
      if (f.post_context !== undefined)
        put(
          'post_context',
          s.at([...at, 'post_context'], () => s.list(f.post_context as string[])),
        )
      st.frames[i] = next
    }
  }
  const exc = event.exception
  if (exc !== undefined) {
    exc.values.forEach((e, i) => {
      if (e.value !== undefined)
        e.value = s.at(['exception', 'values', i, 'value'], () => s.str(e.value as string))
      frames(e.stacktrace, ['exception', 'values', i, 'stacktrace'])
    })
  }
  frames(event.stacktrace, ['stacktrace'])
  event.threads?.values.forEach((t, i) => {
    frames(t.stacktrace, ['threads', 'values', i, 'stacktrace'])
  })
  event.breadcrumbs?.values.forEach((b, i) => {
    if (b.message !== undefined)
      b.message = s.at(['breadcrumbs', 'values', i, 'message'], () => s.str(b.message as string))
    if (b.data !== undefined)
      b.data = s.at(['breadcrumbs', 'values', i, 'data'], () => s.obj(b.data as Obj))
  })
  if (event.extra !== undefined) event.extra = s.at(['extra'], () => s.obj(event.extra as Obj))
  if (event.contexts !== undefined)
    event.contexts = s.at(['contexts'], () => s.obj(event.contexts as Obj))
  if (event.user !== undefined) event.user = s.at(['user'], () => s.obj(event.user as Obj))
  event.tags = event.tags.map((pair, i) => {
    const v = s.at(['tags', i], () => s.entry(pair[0], pair[1]))
    return v === pair[1] ? pair : [pair[0], String(v)]
  })
  if (event.fingerprint !== undefined)
    event.fingerprint = s.at(['fingerprint'], () =>
      s.list(event.fingerprint as string[]),
    ) as string[]
  const req = event.request
  if (req !== undefined) {
    const next: Obj = { ...req }
    let changed = false
    const set = (k: string, v: unknown): void => {
      if (v !== req[k]) {
        next[k] = v
        changed = true
      }
    }
    for (const k in req) {
      if (!Object.hasOwn(req, k)) continue
      const v = req[k]
      if (v === undefined || v === null) continue
      s.path.push('request')
      try {
        switch (k) {
          case 'headers':
            set(
              k,
              s.at([k], () => s.headers(v)),
            )
            break
          case 'cookies':
            set(
              k,
              s.at([k], () => (typeof v === 'string' ? s.cookieString(v) : s.pairs(v, true))),
            )
            break
          case 'query_string':
            set(
              k,
              s.at([k], () => (typeof v === 'string' ? s.formString(v) : s.pairs(v))),
            )
            break
          case 'data':
            set(
              k,
              s.at([k], () => s.body(v)),
            )
            break
          case 'env':
            set(
              k,
              s.at([k], () => s.pairs(v)),
            )
            break
          default:
            set(
              k,
              s.at([k], () => s.any(v)),
            )
        }
      } finally {
        s.path.pop()
      }
    }
    if (changed) event.request = next
  }
  for (const k in unknownKeys) {
    if (!Object.hasOwn(unknownKeys, k) || k === 'debug_meta') continue
    const v = unknownKeys[k]
    const x = s.entry(k, v)
    if (x !== v) unknownKeys[k] = x
  }
  return remarks.count === 0 ? undefined : remarks.meta
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
