/**
 * What the search indexes of one event, built by the digest (ingest/items/event.ts) into the
 * row it writes: the tags, as Sentry promotes them from the event's fields plus every tag the
 * SDK sent, and the free text (message, exception types and values, frame functions and
 * files). Values are bounded here, once; the stores write them as they are.
 */
import type { TrimNote } from '../event/bounds.ts'
import type { Frame, NormalizedEvent } from '../event/types.ts'
import { withoutQuery } from '../event/url-path.ts'
import { MAX_KEY_LENGTH, MAX_VALUE_LENGTH } from './query.ts'

/** Most tags indexed per event (promoted ones first, then the SDK's in the order sent). */
export const MAX_TAGS = 50
/** Longest free text indexed per event (characters). */
export const MAX_TEXT_LENGTH = 1024
/** The value the scrubbers leave in place of a secret: never indexed. */
export const FILTERED = '[Filtered]'

const KEY = /^[A-Za-z0-9_.-]+$/
// biome-ignore lint/suspicious/noControlCharactersInRegex: the separators of encodeSearch
const SEPARATORS = /[\x1d-\x1f]/
// biome-ignore lint/suspicious/noControlCharactersInRegex: the separators of encodeSearch
const SEPARATORS_ALL = /[\x1d-\x1f]/g

/** The search fields of one event, and what was dropped for its bounds. */
export interface EventSearchFields {
  /** (key, value) pairs, one per key, in the order collected. */
  tags: [string, string][]
  /** The free text, space-separated, at most {@link MAX_TEXT_LENGTH} characters. */
  text: string
  /** Tags not indexed (key or value too long, over the count): noted on the event. */
  dropped: TrimNote[]
}

const str = (v: unknown): string | undefined =>
  typeof v === 'string' && v !== ''
    ? v
    : typeof v === 'number' && Number.isFinite(v)
      ? String(v)
      : undefined

const obj = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined

/**
 * "Name Version" of a browser/os/runtime context, as Sentry's `browser` tag; blanks around
 * either left out (an OS version read from a file ends in a newline).
 */
const nameVersion = (c: Record<string, unknown> | undefined): string | undefined => {
  const name = str(c?.['name'])?.trim()
  if (name === undefined || name === '') return undefined
  const version = str(c?.['version'])?.trim()
  return version === undefined || version === '' ? name : `${name} ${version}`
}

/** The `user` tag: id, email, username or IP, the first present, prefixed as Sentry's. */
function userTag(user: Record<string, unknown> | undefined): string | undefined {
  for (const [field, prefix] of [
    ['id', 'id'],
    ['email', 'email'],
    ['username', 'username'],
    ['ip_address', 'ip'],
  ] as const) {
    const v = str(user?.[field])
    if (v !== undefined && v !== FILTERED) return `${prefix}:${v}`
  }
  return undefined
}

/** Adds the promoted tags of an event, before the SDK's own, in Sentry's order. */
function promoted(e: NormalizedEvent, add: (key: string, value: string | undefined) => void): void {
  const ctx = obj(e.contexts)
  const browser = obj(ctx?.['browser'])
  const os = obj(ctx?.['os'])
  const runtime = obj(ctx?.['runtime'])
  const device = obj(ctx?.['device'])
  const exceptions = e.exception?.values
  // Sentry reads the mechanism tag from the last exception (`Exception.iter_tags`: the one
  // thrown, where @sentry/core 11, sentry-java and sentry-go put the capturing mechanism; its
  // causes come before it marked `chained`), here the first one's when the last has none;
  // `handled` is `no` when any exception of the chain was not handled (what Sentry's
  // `error.unhandled` searches: the JavaScript SDKs before 11 mark the innermost cause), else
  // that mechanism's flag.
  const mechanism = exceptions?.at(-1)?.mechanism ?? exceptions?.[0]?.mechanism
  const unhandled = exceptions?.some((x) => x.mechanism?.handled === false) === true
  const handled = unhandled ? false : mechanism?.handled
  const user = obj(e.user)
  add('level', e.level)
  add('logger', e.logger)
  add('release', e.release)
  add('dist', e.dist)
  add('environment', e.environment)
  add('transaction', e.transaction)
  add('server_name', e.server_name)
  const url = str(obj(e.request)?.['url'])
  add('url', url === undefined ? undefined : withoutQuery(url))
  add('browser', nameVersion(browser))
  add('browser.name', str(browser?.['name']))
  add('os', nameVersion(os))
  add('os.name', str(os?.['name']))
  add('runtime', nameVersion(runtime))
  add('runtime.name', str(runtime?.['name']))
  add('device', str(device?.['model']) ?? str(device?.['family']))
  add('device.family', str(device?.['family']))
  if (user !== undefined) {
    add('user', userTag(user))
    add('user.id', str(user['id']))
    add('user.email', str(user['email']))
    add('user.username', str(user['username']))
    add('user.ip', str(user['ip_address']))
  }
  add('handled', handled === undefined ? undefined : handled ? 'yes' : 'no')
  add('mechanism', mechanism?.type)
}

/** The free text of an event: message, exception types and values, then frame names. */
function textOf(e: NormalizedEvent): string {
  const parts = new Set<string>()
  let length = -1
  const add = (v: string | undefined) => {
    if (v === undefined || v === '' || v === FILTERED || length > MAX_TEXT_LENGTH) return
    const part = SEPARATORS.test(v) ? v.replace(SEPARATORS_ALL, ' ') : v
    if (parts.has(part)) return
    parts.add(part)
    length += part.length + 1
  }
  const frames = (list: readonly Frame[] | undefined) => {
    if (list === undefined) return
    for (let i = list.length - 1; i >= 0; i--) {
      const f = list[i] as Frame
      add(f.function)
      add(f.filename ?? f.abs_path)
    }
  }
  add(e.logentry?.formatted)
  add(e.logentry?.message)
  const exceptions = e.exception?.values ?? []
  for (const x of exceptions) {
    add(x.type)
    add(x.value)
  }
  // Innermost frames first: they say most about the error (the last stack's last frame).
  frames(e.stacktrace?.frames)
  const threads = e.threads?.values ?? []
  for (let i = threads.length - 1; i >= 0; i--) frames(threads[i]?.stacktrace?.frames)
  for (let i = exceptions.length - 1; i >= 0; i--) frames(exceptions[i]?.stacktrace?.frames)
  const text = [...parts].join(' ')
  return text.length > MAX_TEXT_LENGTH ? text.slice(0, MAX_TEXT_LENGTH) : text
}

/**
 * The search fields of a normalised event (`component`, when the key has one, is among its
 * tags already). One value per key: a promoted tag wins over an SDK tag of the same key.
 */
export function eventSearchFields(e: NormalizedEvent): EventSearchFields {
  const tags: [string, string][] = []
  const seen = new Set<string>()
  const dropped: TrimNote[] = []
  const add = (key: string, value: string | undefined) => {
    if (value === undefined || value === '' || value === FILTERED || seen.has(key)) return
    if (key.length > MAX_KEY_LENGTH || !KEY.test(key)) {
      dropped.push({ type: 'invalid_data', name: `tags.${key.slice(0, MAX_KEY_LENGTH)}` })
      return
    }
    if (SEPARATORS.test(value)) {
      dropped.push({ type: 'invalid_data', name: `tags.${key}` })
      return
    }
    if (value.length > MAX_VALUE_LENGTH) {
      dropped.push({ type: 'value_too_long', name: `tags.${key}` })
      return
    }
    if (tags.length >= MAX_TAGS) {
      dropped.push({ type: 'too_many_items', name: `tags.${key}` })
      return
    }
    seen.add(key)
    tags.push([key, value])
  }
  promoted(e, add)
  for (const [k, v] of e.tags) add(k, v)
  return { tags, text: textOf(e), dropped }
}

/**
 * The tags a stored event is shown with, in its page and in the API: those the search indexes
 * (promoted from its fields — level, release, url, browser, os, user … — then the SDK's own),
 * then any tag the SDK sent that the search leaves out (a key it refuses), at most `max`. So an
 * event whose SDK sent no tags still lists what it is searched by, as Sentry's stored event
 * lists its derived tags beside the SDK's. `own`: the payload's tags as sent (normalised).
 */
export function shownEventTags(
  event: NormalizedEvent,
  own: readonly [string, string][],
  max: number,
): [string, string][] {
  const indexed = eventSearchFields(event).tags
  const keys = new Set(indexed.map(([k]) => k))
  return [...indexed, ...own.filter(([k]) => !keys.has(k))].slice(0, max)
}

/**
 * The compact per-event form of the tags, stored in `events.search`: `\x1ekey\x1fvalue` per
 * tag, then `\x1d` and the text. Separators are control characters that a normalised tag
 * never holds (KEY forbids them; values with them are dropped by eventSearchFields).
 */
export function encodeSearch(tags: readonly [string, string][], text: string): string {
  let s = ''
  for (const [k, v] of tags) s += `\x1e${k}\x1f${v}`
  return `${s}\x1d${text}`
}

/** Tags every event row holds as its own columns: left out of `events.search`. */
export const COLUMN_TAGS = new Set(['level', 'release', 'environment', 'component'])
/** Longest text kept per event in `events.search` (characters). */
export const MAX_EVENT_TEXT_LENGTH = 256

/**
 * The per-event search string of a digested row: its tags but those in its own columns, and
 * its exception type and value (or message) — the frames are the issue's, indexed once in
 * `issue_text`. Measured on the bench event: 238 → about 150 characters.
 */
export function eventSearchString(
  tags: readonly [string, string][],
  type: string | null,
  value: string | null,
): string {
  const text = [type, value]
    .filter((v): v is string => v !== null && v !== '' && v !== FILTERED)
    .join(' ')
    .replace(SEPARATORS_ALL, ' ')
    .slice(0, MAX_EVENT_TEXT_LENGTH)
  return encodeSearch(
    tags.filter(([k]) => !COLUMN_TAGS.has(k)),
    text,
  )
}

/** Reads {@link encodeSearch}'s form back. */
export function decodeSearch(s: string): { tags: Map<string, string>; text: string } {
  const cut = s.indexOf('\x1d')
  const head = cut < 0 ? s : s.slice(0, cut)
  const tags = new Map<string, string>()
  for (const part of head.split('\x1e')) {
    if (part === '') continue
    const i = part.indexOf('\x1f')
    if (i > 0) tags.set(part.slice(0, i), part.slice(i + 1))
  }
  return { tags, text: cut < 0 ? '' : s.slice(cut + 1) }
}
