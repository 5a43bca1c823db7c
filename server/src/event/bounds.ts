/**
 * How much of a client's event is kept, the way Relay trims before storing
 * (relay-event-normalization `trimming.rs`, `MaxChars` in relay-event-schema): free-form data
 * ("databags": `extra`, `contexts`, `user`, `request`, frame `vars`, breadcrumb `data`, unknown
 * top-level keys) is cut at a depth, a breadth and a string length; lists the UI walks have an
 * item cap; times outside what a `Date` can print are dropped. Whatever is cut is noted on the
 * event under `errors` (Relay's `EventProcessingError` shape), never stored as a value that
 * breaks a reader.
 */
export const BOUNDS = {
  /** Nesting levels kept in a databag; Relay's bag size "large" keeps 7, ours a few more for context trees. */
  bagDepth: 10,
  /** Keys of an object or items of an array kept per level of a databag. */
  bagBreadth: 200,
  /** Characters kept of a string inside a databag. */
  bagString: 8192,
  /** Breadcrumbs kept (the newest); Sentry's SDK default `maxBreadcrumbs` is 100, Relay keeps 200. */
  breadcrumbs: 200,
  /** Frames kept per stack trace; Relay keeps 250, dropping from the middle. */
  frames: 250,
  /** Exceptions in a chain. */
  exceptions: 50,
  threads: 100,
  tags: 200,
  fingerprint: 50,
  /** Lines of `pre_context` / `post_context` per frame. */
  contextLines: 25,
  /** Latest Unix time (s) kept: 9999-12-31T23:59:59Z, which every date formatter can print. */
  maxTimestamp: 253_402_300_799,
} as const

/** A note that part of an event was cut or dropped: `name` is the path, `type` why. */
export interface TrimNote {
  type:
    | 'too_deep'
    | 'too_many_items'
    | 'value_too_long'
    | 'invalid_timestamp'
    | 'invalid_data'
    | 'future_timestamp'
    | 'past_timestamp'
    | 'clock_drift'
  name: string
  /** The time the client sent and the server's, when a time was corrected (RFC 3339). */
  sdk_time?: string
  server_time?: string
}

/** Collects trim notes while one event is normalised (at most 50, then one summary note). */
export class TrimNotes {
  readonly notes: TrimNote[] = []
  private dropped = 0

  add(type: TrimNote['type'], name: string): void {
    if (this.notes.length < 50) this.notes.push({ type, name })
    else this.dropped++
  }

  /** The notes to store, with a final count of those not kept. */
  list(): TrimNote[] {
    return this.dropped === 0
      ? this.notes
      : [...this.notes, { type: 'too_many_items', name: `errors (${this.dropped} more)` }]
  }
}

/**
 * Trims a free-form value to the databag bounds. Never recurses deeper than `BOUNDS.bagDepth`,
 * so hostile nesting costs no stack; non-JSON numbers (`NaN`, `Infinity`) become null.
 *
 * A bag already within every bound is returned as it is, not copied: the copy would serialise
 * to the same JSON and note nothing, and most events' bags are within bounds (copying them was
 * most of this function's cost on the digest step, see docs/ingest-hot-path.md). The result
 * may therefore share objects with `v`; callers store it, they never mutate it.
 */
export function trimBag(v: unknown, name: string, notes: TrimNotes, depth = 0): unknown {
  if (v !== null && typeof v === 'object' && withinBounds(v, depth)) return v
  return copyBag(v, name, notes, depth)
}

/**
 * Whether `copyBag(v, …, depth)` would note nothing and serialise exactly like `v`. Walks
 * without allocating. Conservative: anything a JSON parser does not produce (`undefined`,
 * functions, non-finite numbers, objects that are not plain), a `__proto__` key (the copy's
 * assignment would set a prototype instead) and a key the copy would cut all answer false.
 */
function withinBounds(v: unknown, depth: number): boolean {
  switch (typeof v) {
    case 'string':
      return v.length <= BOUNDS.bagString
    case 'number':
      return Number.isFinite(v)
    case 'boolean':
      return true
    case 'object':
      break
    default:
      return false
  }
  if (v === null) return true
  if (depth >= BOUNDS.bagDepth) return false
  if (Array.isArray(v)) {
    if (v.length > BOUNDS.bagBreadth) return false
    for (let i = 0; i < v.length; i++) if (!withinBounds(v[i], depth + 1)) return false
    return true
  }
  if (Object.getPrototypeOf(v) !== Object.prototype) return false
  const obj = v as Record<string, unknown>
  let n = 0
  // for…in also sees inherited enumerable keys (none on a plain object): only ever stricter.
  for (const k in obj) {
    if (++n > BOUNDS.bagBreadth || k.length > 200 || k === '__proto__') return false
    if (!withinBounds(obj[k], depth + 1)) return false
  }
  return true
}

/** The trimming copy, for a bag that exceeds a bound somewhere (or is not plain JSON data). */
function copyBag(v: unknown, name: string, notes: TrimNotes, depth: number): unknown {
  if (typeof v === 'string') {
    if (v.length <= BOUNDS.bagString) return v
    notes.add('value_too_long', name)
    return v.slice(0, BOUNDS.bagString)
  }
  if (typeof v === 'number') return Number.isFinite(v) ? v : null
  if (v === null || typeof v !== 'object') return v
  if (depth >= BOUNDS.bagDepth) {
    notes.add('too_deep', name)
    return null
  }
  if (Array.isArray(v)) {
    if (v.length > BOUNDS.bagBreadth) notes.add('too_many_items', name)
    return v.slice(0, BOUNDS.bagBreadth).map((x, i) => copyBag(x, `${name}.${i}`, notes, depth + 1))
  }
  const out: Record<string, unknown> = {}
  let n = 0
  for (const [k, x] of Object.entries(v)) {
    if (n++ >= BOUNDS.bagBreadth) {
      notes.add('too_many_items', name)
      break
    }
    out[k.slice(0, 200)] = copyBag(x, `${name}.${k.slice(0, 40)}`, notes, depth + 1)
  }
  return out
}

/** Keeps at most `max` items of a list, from both ends (the middle of a stack trace is the least useful). */
export function keepEnds<T>(list: T[], max: number): T[] {
  if (list.length <= max) return list
  const head = Math.floor(max / 2)
  return [...list.slice(0, head), ...list.slice(list.length - (max - head))]
}
