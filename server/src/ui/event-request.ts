/**
 * The parts of an event a web framework's SDK integration adds, rendered for the issue page: the
 * request (method and URL as one line, then query, headers, cookies, body and environment as
 * tables or text) and the SDK's integrations. Values are what is stored, shown as text; the
 * payload is untrusted JSON read through small guards.
 */
import { truncate } from './format.ts'
import { html, type SafeHtml } from './html.ts'

type Json = Record<string, unknown>

/** Caps that keep a pathological request small on the page. */
const MAX_PAIRS = 100
const MAX_BODY = 8000
const MAX_INTEGRATIONS = 100

const obj = (v: unknown): Json | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined
const scalar = (v: unknown): string | undefined =>
  typeof v === 'string'
    ? v
    : typeof v === 'number' || typeof v === 'boolean'
      ? String(v)
      : undefined

function asText(v: unknown, max: number): string {
  const s = scalar(v)
  if (s !== undefined) return truncate(s, max)
  try {
    return truncate(JSON.stringify(v, null, 2) ?? '', max)
  } catch {
    return ''
  }
}

/**
 * Name/value pairs from the shapes SDKs send headers, cookies and query strings in: an object,
 * a list of `[name, value]` pairs, or (query and cookies) one encoded string.
 */
export function pairsOf(v: unknown, separator: '&' | ';'): [string, string][] {
  if (Array.isArray(v)) {
    return v
      .filter((p): p is unknown[] => Array.isArray(p) && p.length >= 2)
      .slice(0, MAX_PAIRS)
      .map((p) => [scalar(p[0]) ?? '', asText(p[1], 2000)])
  }
  const o = obj(v)
  if (o !== undefined) {
    return Object.entries(o)
      .slice(0, MAX_PAIRS)
      .map(([k, value]) => [k, asText(value, 2000)])
  }
  if (typeof v !== 'string' || v.trim() === '') return []
  return v
    .replace(/^\?/, '')
    .split(separator)
    .slice(0, MAX_PAIRS)
    .map((part) => {
      const at = part.indexOf('=')
      const name = (at < 0 ? part : part.slice(0, at)).trim()
      const value = at < 0 ? '' : part.slice(at + 1)
      return [decodeOr(name), decodeOr(value)] as [string, string]
    })
}

/** `decodeURIComponent`, or the text itself when it is not valid percent-encoding. */
function decodeOr(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '))
  } catch {
    return text
  }
}

function pairTable(title: string, pairs: [string, string][]): SafeHtml {
  if (pairs.length === 0) return html``
  return html`<h3>${title}</h3><div class="table-wrap"><table class="kv">${pairs.map(
    ([k, v]) => html`<tr><th class="mono">${truncate(k, 200)}</th><td class="mono">${v}</td></tr>`,
  )}</table></div>`
}

/** The request's fields shown in a place of their own, not among "Other". */
const SHOWN = new Set([
  'method',
  'url',
  'query_string',
  'headers',
  'cookies',
  'data',
  'env',
  'inferred_content_type',
])

/** The request section: empty when the event carries no request. */
export function requestSection(request: unknown): SafeHtml {
  const r = obj(request)
  if (r === undefined) return html``
  const method = scalar(r['method'])
  const url = scalar(r['url'])
  const body = r['data']
  const hasBody = body !== undefined && body !== null && body !== ''
  // The type the body was read as (event/request.ts) labels the body: it says nothing of a
  // request without one (a WSGI GET carries `Content-Type: text/plain` by default).
  const bodyType = hasBody ? scalar(r['inferred_content_type']) : undefined
  const rest = Object.entries(r).filter(([k]) => !SHOWN.has(k))
  return html`<h2>Request</h2><section class="request">
${method === undefined && url === undefined ? '' : html`<p class="mono break"><b>${method ?? ''}</b> ${truncate(url ?? '', 2000)}</p>`}
${pairTable('Query', pairsOf(r['query_string'], '&'))}
${pairTable('Headers', pairsOf(r['headers'], '&'))}
${pairTable('Cookies', pairsOf(r['cookies'], ';'))}
${hasBody ? html`<h3>Body${bodyType === undefined ? '' : html` <span class="muted small mono">${truncate(bodyType, 100)}</span>`}</h3><pre>${asText(body, MAX_BODY)}</pre>` : ''}
${pairTable('Environment', pairsOf(r['env'], '&'))}
${pairTable(
  'Other',
  rest.slice(0, MAX_PAIRS).map(([k, v]) => [k, asText(v, 2000)]),
)}
</section>`
}

/** The SDK's integrations (`sdk.integrations`) as one line each; empty when none were sent. */
export function integrationsSection(sdk: unknown): SafeHtml {
  const list = obj(sdk)?.['integrations']
  if (!Array.isArray(list)) return html``
  const names = list
    .filter((v): v is string => typeof v === 'string' && v !== '')
    .slice(0, MAX_INTEGRATIONS)
  if (names.length === 0) return html``
  return html`<h2>SDK integrations</h2><p class="integrations small">${names.map(
    (n) => html`<span class="badge">${truncate(n, 100)}</span> `,
  )}</p>`
}
