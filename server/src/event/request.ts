/**
 * Relay's request normalisation (`relay-event-normalization` `normalize/request.rs`), run on
 * the client's `request` before it is bounded, scrubbed and grouped, so every SDK's request
 * is stored in one shape whatever it sent: the method upper-cased (dropped when it is no
 * method), the URL's query and fragment moved into `query_string` (as pairs) and `fragment`, a
 * body sent as a JSON or form-encoded string parsed into its value with `inferred_content_type`
 * saying which (else the `Content-Type` header's type), and cookies sent as a string or only as
 * a `Cookie` header parsed into `cookies` (the header dropped once `cookies` holds them), and
 * header names written as Relay's `HeaderName` (`x-api-key` → `X-Api-Key`).
 */

import { isObj, type Obj } from './json.ts'
import { headerOf } from './request-header.ts'

/** What Relay accepts as a method once upper-cased. */
const METHOD = /^[A-Z_-]{3,32}$/

/** The JavaScript SDK's old ellipsis at the end of a cut URL (Relay writes three dots). */
const ELLIPSIS = '\u2026'

/** A query string's pairs, decoded as a form is (`+` is a blank), a leading `?` left out. */
function queryPairs(query: string): [string, string][] {
  return [...new URLSearchParams(query.startsWith('?') ? query.slice(1) : query)]
}

/** Moves the URL's query and fragment into their own fields (those sent win) and out of it. */
function splitUrl(r: Obj, url: string): void {
  let u = url.endsWith(ELLIPSIS) ? `${url.slice(0, -ELLIPSIS.length)}...` : url
  let parsed: URL | undefined
  try {
    parsed = URL.canParse(u) ? new URL(u) : undefined
  } catch {
    parsed = undefined
  }
  if (parsed !== undefined) {
    if (r['query_string'] === undefined && parsed.search.length > 1) {
      r['query_string'] = queryPairs(parsed.search)
    }
    if (r['fragment'] === undefined && parsed.hash.length > 1) r['fragment'] = parsed.hash.slice(1)
    parsed.search = ''
    parsed.hash = ''
    u = parsed.href
  } else {
    // A relative URL: the same split by its first `#` and then its first `?`.
    const hash = u.indexOf('#')
    if (hash >= 0) {
      const fragment = u.slice(hash + 1)
      if (fragment !== '' && r['fragment'] === undefined) r['fragment'] = fragment
      u = u.slice(0, hash)
    }
    const q = u.indexOf('?')
    if (q >= 0) {
      const query = u.slice(q + 1)
      if (query !== '' && r['query_string'] === undefined) {
        const pairs = queryPairs(query)
        if (pairs.length > 0) r['query_string'] = pairs
      }
      u = u.slice(0, q)
    }
  }
  r['url'] = u
}

/**
 * A form-encoded body's fields, or undefined for text that only parses as one by accident
 * (Relay's `urlencoded_from_str`: not ASCII, XML or JSON-like; a single field whose value is
 * empty or `=`, as a word or a base64 string reads). Beyond Relay, text with a blank in it is
 * no form either (an encoder writes a blank as `+` or `%20`): `Customer called: card 4111 …;
 * priority=high` had become one field named by the whole sentence, and names are not scrubbed,
 * so the card number in it was stored; kept as text, the value rules read all of it.
 */
function formFields(raw: string): Obj | undefined {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII is the test.
  if (!/^[\x00-\x7f]*$/.test(raw) || /\s/.test(raw.trim())) return undefined
  if (raw.startsWith('<?xml') || raw.startsWith('{') || raw.startsWith('[')) return undefined
  // fromEntries defines own keys: a field named `__proto__` stays a plain field.
  const fields: Obj = Object.fromEntries(new URLSearchParams(raw))
  const values = Object.values(fields)
  const only = values.length === 1 ? values[0] : undefined
  if (values.length > 1 || (only !== undefined && only !== '' && only !== '=')) return fields
  return undefined
}

/** The `Content-Type` header's media type, if the request names one. */
function contentType(headers: unknown): string | undefined {
  const value = headerOf(headers, 'content-type')
  return value === undefined ? undefined : (value.split(';')[0] ?? value)
}

/** The headers without the named one (a copy; the same value when it is not there). */
function withoutHeader(headers: unknown, lower: string): unknown {
  if (isObj(headers)) {
    const kept = Object.entries(headers).filter(([k]) => k.toLowerCase() !== lower)
    return kept.length === Object.keys(headers).length ? headers : Object.fromEntries(kept)
  }
  if (Array.isArray(headers)) {
    const out = headers.filter(
      (p) => !(Array.isArray(p) && typeof p[0] === 'string' && p[0].toLowerCase() === lower),
    )
    return out.length === headers.length ? headers : out
  }
  return headers
}

/**
 * A `Cookie` header's cookies as pairs (`a=b; c=d`), as Relay's `Cookies::parse` reads it;
 * undefined when a part is no `name=value` pair (Relay then leaves the header as it is).
 */
function cookiePairs(text: string): [string, string][] | undefined {
  const pairs: [string, string][] = []
  for (const part of text.split(';')) {
    const t = part.trim()
    if (t === '') continue
    const eq = t.indexOf('=')
    if (eq <= 0) return undefined
    pairs.push([t.slice(0, eq).trim(), t.slice(eq + 1).trim()])
  }
  return pairs
}

/** The body: parsed when it is a JSON or form-encoded string; its inferred content type. */
function normalizeData(r: Obj): void {
  const data = r['data']
  if (typeof data === 'string') {
    try {
      r['data'] = JSON.parse(data)
      r['inferred_content_type'] = 'application/json'
      return
    } catch {
      // not JSON: a form, or text
    }
    const fields = formFields(data)
    if (fields !== undefined) {
      r['data'] = fields
      r['inferred_content_type'] = 'application/x-www-form-urlencoded'
      return
    }
  }
  const type = contentType(r['headers'])
  if (type !== undefined) r['inferred_content_type'] = type
  else delete r['inferred_content_type']
}

/**
 * Cookies sent as a string (sentry-java, sentry-go) become pairs, as Relay reads them; cookies
 * sent as a header only become `cookies`; the header goes once `cookies` is set.
 */
function normalizeCookies(r: Obj): void {
  const sent = r['cookies']
  if (typeof sent === 'string') {
    const pairs = cookiePairs(sent)
    if (pairs !== undefined) r['cookies'] = pairs
  }
  const headers = r['headers']
  if (headers === undefined || headers === null) return
  const cookies = r['cookies']
  if (cookies !== undefined && cookies !== null) {
    r['headers'] = withoutHeader(headers, 'cookie')
    return
  }
  const text = headerOf(headers, 'cookie')
  const pairs = text === undefined ? undefined : cookiePairs(text)
  if (pairs === undefined) return
  r['cookies'] = pairs
  r['headers'] = withoutHeader(headers, 'cookie')
}

/**
 * A header's name as Relay's `HeaderName` writes it: the first letter and each one after a `-`
 * upper-cased, the others as sent (`x-api-key` → `X-Api-Key`, `WWW-Authenticate` unchanged).
 */
export function headerName(name: string): string {
  let out = ''
  let up = true
  for (const c of name) {
    out += up ? c.toUpperCase() : c
    up = c === '-'
  }
  return out
}

/** The headers with their names as Relay writes them (the same value when none changes). */
function normalizeHeaders(headers: unknown): unknown {
  if (isObj(headers)) {
    const keys = Object.keys(headers)
    if (keys.every((k) => headerName(k) === k)) return headers
    return Object.fromEntries(Object.entries(headers).map(([k, v]) => [headerName(k), v]))
  }
  if (!Array.isArray(headers)) return headers
  let changed = false
  const out = headers.map((p) => {
    if (!Array.isArray(p) || typeof p[0] !== 'string') return p
    const name = headerName(p[0])
    if (name === p[0]) return p
    changed = true
    return [name, ...p.slice(1)]
  })
  return changed ? out : headers
}

/** A client's `request`, normalised as Relay does (a copy: the client's object is left). */
export function normalizeRequest(raw: Obj): Obj {
  const r: Obj = { ...raw }
  const method = r['method']
  if (typeof method === 'string') {
    const m = method.toUpperCase()
    if (METHOD.test(m)) r['method'] = m
    else delete r['method']
  }
  const url = r['url']
  if (typeof url === 'string') splitUrl(r, url)
  const query = r['query_string']
  if (typeof query === 'string') r['query_string'] = queryPairs(query)
  if (r['headers'] !== undefined) r['headers'] = normalizeHeaders(r['headers'])
  normalizeData(r)
  normalizeCookies(r)
  return r
}
