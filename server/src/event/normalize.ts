import { randomUUID } from 'node:crypto'
import { BOUNDS, keepEnds, TrimNotes, trimBag } from './bounds.ts'
import { isObj, type Obj } from './json.ts'
import { LEGACY_STACKTRACE } from './legacy-aliases.ts'
import { formatLogMessage } from './logentry-format.ts'
import { normalizeRequest } from './request.ts'
import type {
  Breadcrumb,
  ExceptionValue,
  Frame,
  Level,
  LogEntry,
  MechanismMeta,
  NormalizedEvent,
  Stacktrace,
} from './types.ts'
import { wellFormed } from './well-formed.ts'

const str = (v: unknown, max = 8192): string | undefined =>
  typeof v === 'string' ? v.slice(0, max) : typeof v === 'number' ? String(v) : undefined
/** A name events are found by (release, dist, environment): bounded and well-formed text. */
const nameOf = (v: unknown): string | undefined => {
  const s = str(v, 256)
  return s === undefined ? undefined : wellFormed(s)
}
const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : undefined
const bool = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : undefined)
/** The first `max` strings (numbers as text) of a list; a loop: it runs twice per frame. */
function strList(v: unknown, max: number = BOUNDS.contextLines): string[] | undefined {
  if (!Array.isArray(v)) return undefined
  const out: string[] = []
  const n = Math.min(v.length, max)
  for (let i = 0; i < n; i++) {
    const s = str(v[i], 1024)
    if (s !== undefined) out.push(s)
  }
  return out
}

/** Sets `key` only when the value exists (the types use exact optional properties). */
function put<T extends object, K extends keyof T>(
  target: T,
  key: K,
  value: T[K] | undefined,
): void {
  if (value !== undefined) target[key] = value
}

const HEX32 = /^[0-9a-f]{32}$/

/** Accepts 32 hex or a dashed UUID, any case; returns 32 lowercase hex or undefined. */
export function normalizeEventId(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined
  // SDKs send the canonical form; it is checked twice per event, so skip the copies for it.
  if (v.length === 32 && HEX32.test(v)) return v
  const id = v.replaceAll('-', '').toLowerCase()
  return HEX32.test(id) ? id : undefined
}

/** Generates a fresh event id. */
export const newEventId = (): string => randomUUID().replaceAll('-', '')

const sane = (s: number): number | undefined =>
  Number.isFinite(s) && s > 0 && s <= BOUNDS.maxTimestamp ? s : undefined

/**
 * Float Unix seconds or an RFC 3339 string to Unix seconds; undefined for anything else and for
 * times after 9999 (`1e20`, `"9999999999999"`), which no date formatter can print.
 */
export function parseTimestamp(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v) && v > 0) return sane(v > 1e11 ? v / 1000 : v)
  if (typeof v === 'string' && v !== '' && v.length <= 64) {
    const asNum = Number(v)
    if (Number.isFinite(asNum) && asNum > 0) return sane(asNum)
    const hasZone = /[zZ]|[+-]\d\d:?\d\d$/.test(v)
    const ms = Date.parse(hasZone ? v : `${v}Z`)
    if (Number.isFinite(ms)) return sane(ms / 1000)
  }
  return undefined
}

const LEVELS: Record<string, Level> = {
  fatal: 'fatal',
  critical: 'fatal',
  error: 'error',
  warning: 'warning',
  warn: 'warning',
  info: 'info',
  log: 'info',
  debug: 'debug',
  trace: 'debug',
}

/** Level names and Python's numeric levels to the five levels. */
export function normalizeLevel(v: unknown): Level {
  if (typeof v === 'number') {
    if (v >= 50) return 'fatal'
    if (v >= 40) return 'error'
    if (v >= 30) return 'warning'
    if (v >= 20) return 'info'
    return 'debug'
  }
  if (typeof v !== 'string') return 'error'
  // Own keys only: `constructor` or `__proto__` would otherwise find Object.prototype's members
  // and put a function or an object where the store expects a level.
  const key = v.toLowerCase()
  return Object.hasOwn(LEVELS, key) ? (LEVELS[key] ?? 'error') : 'error'
}

/** A whole number from 0 to 2^53 as a hex address (`4096` → `0x1000`), else undefined. */
const hexAddress = (n: number): string | undefined =>
  Number.isSafeInteger(n) && n >= 0 ? `0x${n.toString(16)}` : undefined

/**
 * A native address as sent: a string as it is (at most 64 characters), a whole number as hex
 * (some SDKs send numbers; Relay reads both).
 */
const address = (v: unknown): string | undefined =>
  typeof v === 'number' ? hexAddress(v) : str(v, 64)

/**
 * One frame, its fields in this order (the stored JSON keeps it). Written out field by field
 * rather than as a loop over names: it runs for every frame of every event, and a store with a
 * constant name is far cheaper than one with a name from a list.
 */
function frame(v: unknown, notes: TrimNotes): Frame | undefined {
  if (!isObj(v)) return undefined
  const f: Frame = {}
  const filename = str(v['filename'], 1024)
  if (filename !== undefined) f.filename = filename
  const absPath = str(v['abs_path'], 1024)
  if (absPath !== undefined) f.abs_path = absPath
  const fn = str(v['function'], 1024)
  if (fn !== undefined) f.function = fn
  const rawFunction = str(v['raw_function'], 1024)
  if (rawFunction !== undefined) f.raw_function = rawFunction
  const module = str(v['module'], 1024)
  if (module !== undefined) f.module = module
  const pkg = str(v['package'], 1024)
  if (pkg !== undefined) f.package = pkg
  const platform = str(v['platform'], 1024)
  if (platform !== undefined) f.platform = platform
  const contextLine = str(v['context_line'], 1024)
  if (contextLine !== undefined) f.context_line = contextLine
  const instructionAddr = address(v['instruction_addr'])
  if (instructionAddr !== undefined) f.instruction_addr = instructionAddr
  const symbol = str(v['symbol'], 1024)
  if (symbol !== undefined) f.symbol = symbol
  const symbolAddr = address(v['symbol_addr'])
  if (symbolAddr !== undefined) f.symbol_addr = symbolAddr
  const imageAddr = address(v['image_addr'])
  if (imageAddr !== undefined) f.image_addr = imageAddr
  const addrMode = str(v['addr_mode'], 64)
  if (addrMode !== undefined) f.addr_mode = addrMode
  const trust = str(v['trust'], 64)
  if (trust !== undefined) f.trust = trust
  const stackStart = bool(v['stack_start'])
  if (stackStart !== undefined) f.stack_start = stackStart
  const lineno = num(v['lineno'])
  if (lineno !== undefined) f.lineno = lineno
  const colno = num(v['colno'])
  if (colno !== undefined) f.colno = colno
  const inApp = bool(v['in_app'])
  if (inApp !== undefined) f.in_app = inApp
  const pre = strList(v['pre_context'])
  if (pre !== undefined) f.pre_context = pre
  const post = strList(v['post_context'])
  if (post !== undefined) f.post_context = post
  if (isObj(v['vars'])) f.vars = trimBag(v['vars'], 'frame.vars', notes) as Record<string, unknown>
  // Source-map results (`symbolicated`, `sourcemap`, `sourcemap_error`), as Sentry's frame data.
  if (isObj(v['data'])) f.data = trimBag(v['data'], 'frame.data', notes) as Record<string, unknown>
  return f
}

function stacktrace(v: unknown, notes: TrimNotes): Stacktrace | undefined {
  if (!isObj(v) || !Array.isArray(v['frames'])) return undefined
  if (v['frames'].length > BOUNDS.frames) notes.add('too_many_items', 'stacktrace.frames')
  const frames: Frame[] = []
  for (const raw of keepEnds(v['frames'], BOUNDS.frames)) {
    const f = frame(raw, notes)
    if (f !== undefined) frames.push(f)
  }
  if (frames.length === 0) return undefined
  const registers = registerValues(v['registers'])
  return registers === undefined ? { frames } : { frames, registers }
}

/** Registers read at most: arm64 has 34 general ones, x86-64 with vector registers fewer than 100. */
const MAX_REGISTERS = 128

/** A register value as Relay's `RegVal` reads one: a hex (`0x…`) or decimal address. */
const REGISTER_VALUE = /^(?:0x[0-9a-f]{1,32}|\d{1,39})$/i
/** A register's name: letters, digits and `_ . $` (`x29`, `rip`, `cpsr`, `$pc`). */
const REGISTER_NAME = /^[\w.$]{1,64}$/

/**
 * A stack trace's `registers` (`{"pc": "0x1000b0bfc", …}`) as Relay keeps them: names to
 * addresses, a number read as one; anything else is dropped, so no client text is kept here
 * unscrubbed. Bounded in count.
 */
function registerValues(v: unknown): Record<string, string> | undefined {
  if (!isObj(v)) return undefined
  const out: [string, string][] = []
  for (const [name, value] of Object.entries(v)) {
    if (out.length >= MAX_REGISTERS) break
    const text =
      typeof value === 'number'
        ? hexAddress(value)
        : typeof value === 'string' && REGISTER_VALUE.test(value)
          ? value
          : undefined
    if (text !== undefined && REGISTER_NAME.test(name)) out.push([name, text])
  }
  // fromEntries defines own keys, so a register named `__proto__` stays a plain key.
  return out.length === 0 ? undefined : Object.fromEntries(out)
}

/** A whole number from 0 to 2^53 (ids, signal and error numbers), else undefined. */
const count = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined

/** A signed whole number (a Mach exception's code, an NSError's), else undefined. */
const whole = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined

const name64 = (v: unknown): string | undefined => str(v, 64)

/** The known fields of a mechanism's `meta` (types.ts `MechanismMeta`), each with its reader. */
const META_FIELDS: Record<keyof MechanismMeta, Record<string, (v: unknown) => unknown>> = {
  signal: { number: count, code: whole, name: name64, code_name: name64 },
  errno: { number: whole, name: name64 },
  mach_exception: { exception: whole, code: whole, subcode: whole, name: name64 },
  ns_error: { code: whole, domain: (v) => str(v, 256) },
}

/** The known fields of a mechanism's `meta`; undefined when none is there. */
function mechanismMeta(v: unknown): MechanismMeta | undefined {
  if (!isObj(v)) return undefined
  const meta: Obj = {}
  for (const [part, fields] of Object.entries(META_FIELDS)) {
    const sent = v[part]
    if (!isObj(sent)) continue
    const o: Obj = {}
    for (const [field, read] of Object.entries(fields)) {
      const x = read(sent[field])
      if (x !== undefined) o[field] = x
    }
    if (Object.keys(o).length > 0) meta[part] = o
  }
  // Built from META_FIELDS, whose readers give each field its declared type.
  return Object.keys(meta).length > 0 ? (meta as MechanismMeta) : undefined
}

function exceptionValue(v: unknown, notes: TrimNotes): ExceptionValue | undefined {
  if (!isObj(v)) return undefined
  const e: ExceptionValue = {}
  put(e, 'type', str(v['type'], 256))
  put(e, 'value', str(v['value']))
  put(e, 'module', str(v['module'], 256))
  put(e, 'stacktrace', stacktrace(v['stacktrace'] ?? v[LEGACY_STACKTRACE], notes))
  // The minified frames of a source-mapped stack (ingest/source-maps/frames.ts).
  put(e, 'raw_stacktrace', stacktrace(v['raw_stacktrace'], notes))
  const m = v['mechanism']
  if (isObj(m)) {
    const mech: NonNullable<ExceptionValue['mechanism']> = {}
    put(mech, 'type', str(m['type'], 128))
    put(mech, 'handled', bool(m['handled']))
    put(mech, 'synthetic', bool(m['synthetic']))
    put(mech, 'description', str(m['description']))
    put(mech, 'help_link', str(m['help_link'], 2048))
    put(mech, 'source', str(m['source'], 256))
    put(mech, 'is_exception_group', bool(m['is_exception_group']))
    put(mech, 'exception_id', count(m['exception_id']))
    put(mech, 'parent_id', count(m['parent_id']))
    if (isObj(m['data']))
      mech.data = trimBag(m['data'], 'exception.values.mechanism.data', notes) as Obj
    put(mech, 'meta', mechanismMeta(m['meta']))
    e.mechanism = mech
  }
  const thread = v['thread_id']
  put(e, 'thread_id', count(thread) ?? str(thread, 128))
  return e.type === undefined && e.value === undefined && e.stacktrace === undefined ? undefined : e
}

function exceptions(v: unknown, notes: TrimNotes): { values: ExceptionValue[] } | undefined {
  const list = Array.isArray(v)
    ? v
    : isObj(v)
      ? Array.isArray(v['values'])
        ? v['values']
        : [v]
      : []
  if (list.length > BOUNDS.exceptions) notes.add('too_many_items', 'exception.values')
  const values: ExceptionValue[] = []
  for (const raw of keepEnds(list, BOUNDS.exceptions)) {
    const e = exceptionValue(raw, notes)
    if (e !== undefined) values.push(e)
  }
  return values.length > 0 ? { values } : undefined
}

function logentry(raw: Obj, notes: TrimNotes): LogEntry | undefined {
  const src = isObj(raw['logentry'])
    ? raw['logentry']
    : isObj(raw['message'])
      ? raw['message']
      : undefined
  const entry: LogEntry = {}
  if (src !== undefined) {
    put(entry, 'message', str(src['message']))
    put(entry, 'formatted', str(src['formatted']))
    const params = src['params']
    if (Array.isArray(params) || isObj(params))
      entry.params = trimBag(params, 'logentry.params', notes) as unknown[] | Obj
  }
  // A top-level `message` string is the rendered text, unless it is the template itself (raven
  // clients send both, with `formatted: null`): then the template is rendered below, as
  // Sentry's legacy normalisation kept the string only when it differed from the template.
  const top = raw['message']
  if (entry.formatted === undefined && typeof top === 'string' && top !== entry.message) {
    entry.formatted = top.slice(0, 8192)
  }
  // A template sent without any rendering is rendered here, as Relay does.
  const params = entry.params
  if (entry.formatted === undefined && entry.message !== undefined && params !== undefined)
    put(entry, 'formatted', formatLogMessage(entry.message, params))
  return entry.message === undefined && entry.formatted === undefined ? undefined : entry
}

function tags(v: unknown, notes: TrimNotes): [string, string][] {
  const pairs: [string, string][] = []
  const add = (k: unknown, val: unknown): void => {
    if (pairs.length >= BOUNDS.tags) {
      if (pairs.length === BOUNDS.tags) notes.add('too_many_items', 'tags')
      return
    }
    // As Relay's `TagEntry`: the key trimmed with its blanks as `-`, a boolean value written as
    // Python does (`True`, `False`: Relay's `LenientString`), so `flag:True` finds it as there.
    const key = str(k, 200)?.trim().replaceAll(' ', '-')
    const value = str(val, 200) ?? (typeof val === 'boolean' ? (val ? 'True' : 'False') : undefined)
    if (key !== undefined && key !== '' && value !== undefined) pairs.push([key, value])
  }
  if (Array.isArray(v)) {
    for (const p of v) if (Array.isArray(p)) add(p[0], p[1])
  } else if (isObj(v)) {
    for (const [k, val] of Object.entries(v)) add(k, val)
  }
  return pairs
}

function breadcrumbs(v: unknown, notes: TrimNotes): { values: Breadcrumb[] } | undefined {
  const list = Array.isArray(v)
    ? v
    : isObj(v) && Array.isArray(v['values'])
      ? v['values']
      : undefined
  if (list === undefined) return undefined
  const values: Breadcrumb[] = []
  if (list.length > BOUNDS.breadcrumbs) notes.add('too_many_items', 'breadcrumbs')
  for (const b of list.slice(-BOUNDS.breadcrumbs)) {
    if (!isObj(b)) continue
    const crumb: Breadcrumb = {}
    const ts = parseTimestamp(b['timestamp'])
    if (ts === undefined && b['timestamp'] != null)
      notes.add('invalid_timestamp', 'breadcrumbs.timestamp')
    // Up to 200 per event: constant-name stores, in this order (the stored JSON keeps it).
    if (ts !== undefined) crumb.timestamp = ts
    const type = str(b['type'], 64)
    if (type !== undefined) crumb.type = type
    const category = str(b['category'], 256)
    if (category !== undefined) crumb.category = category
    const message = str(b['message'])
    if (message !== undefined) crumb.message = message
    const level = str(b['level'], 32)
    if (level !== undefined) crumb.level = level
    if (isObj(b['data'])) crumb.data = trimBag(b['data'], 'breadcrumbs.data', notes) as Obj
    values.push(crumb)
  }
  return { values }
}

/**
 * Turns an SDK event payload (any of the legacy shapes) into the one shape the service uses.
 * `eventId` from the envelope header wins over the payload's; `received` (s) fills a missing
 * timestamp. Unknown fields of the payload are kept for display by the caller.
 */
export function normalizeEvent(
  raw: Obj,
  opts: { eventId?: string; received: number },
): NormalizedEvent {
  const notes = new TrimNotes()
  const timestamp = parseTimestamp(raw['timestamp'])
  if (timestamp === undefined && raw['timestamp'] != null)
    notes.add('invalid_timestamp', 'timestamp')
  const event: NormalizedEvent = {
    event_id: opts.eventId ?? normalizeEventId(raw['event_id']) ?? newEventId(),
    timestamp: timestamp ?? opts.received,
    platform: str(raw['platform'], 64) ?? 'other',
    level: normalizeLevel(raw['level']),
    tags: tags(raw['tags'], notes),
  }
  // Field by field, in this order (the stored JSON keeps it): constant-name stores.
  put(event, 'logger', str(raw['logger'], 256))
  put(event, 'culprit', str(raw['culprit'], 200))
  put(event, 'transaction', str(raw['transaction'], 200))
  put(event, 'server_name', str(raw['server_name'], 256))
  put(event, 'release', nameOf(raw['release']))
  put(event, 'dist', nameOf(raw['dist']))
  put(event, 'environment', nameOf(raw['environment']))
  put(event, 'logentry', logentry(raw, notes))
  put(event, 'exception', exceptions(raw['exception'], notes))
  put(event, 'stacktrace', stacktrace(raw['stacktrace'], notes))
  const threads = raw['threads']
  const threadList =
    isObj(threads) && Array.isArray(threads['values'])
      ? threads['values']
      : Array.isArray(threads)
        ? threads
        : undefined
  if (threadList !== undefined) {
    if (threadList.length > BOUNDS.threads) notes.add('too_many_items', 'threads')
    event.threads = {
      values: threadList
        .slice(0, BOUNDS.threads)
        .filter(isObj)
        .map((t) => {
          const th: NonNullable<NormalizedEvent['threads']>['values'][number] = {
            id: typeof t['id'] === 'string' ? t['id'].slice(0, 64) : (num(t['id']) ?? null),
          }
          put(th, 'name', str(t['name'], 256))
          put(th, 'crashed', bool(t['crashed']))
          put(th, 'current', bool(t['current']))
          put(th, 'main', bool(t['main']))
          put(th, 'state', str(t['state'], 64))
          put(th, 'stacktrace', stacktrace(t['stacktrace'], notes))
          return th
        }),
    }
  }
  const fp = strList(raw['fingerprint'], BOUNDS.fingerprint)
  if (fp !== undefined && fp.length > 0) event.fingerprint = fp
  for (const k of ['user', 'contexts', 'request', 'extra'] as const) {
    const v = raw[k]
    if (isObj(v)) event[k] = trimBag(k === 'request' ? normalizeRequest(v) : v, k, notes) as Obj
  }
  put(event, 'breadcrumbs', breadcrumbs(raw['breadcrumbs'], notes))
  const sdk = raw['sdk']
  if (isObj(sdk)) {
    const s: NonNullable<NormalizedEvent['sdk']> = {}
    put(s, 'name', str(sdk['name'], 128))
    put(s, 'version', str(sdk['version'], 64))
    event.sdk = s
  }
  const noted = notes.list()
  if (noted.length > 0) event.errors = noted
  return event
}
