import Bowser from 'bowser'
import { LRUCache } from 'lru-cache'
import { requestHeader } from './request-header.ts'
import type { NormalizedEvent } from './types.ts'

/** Longest User-Agent read (a longer one is no browser's). */
const MAX_USER_AGENT = 512

interface Parsed {
  browser?: { name: string; version?: string }
  os?: { name: string; version?: string }
}

/** The same few User-Agents recur: each is parsed once per process. */
const parsed = new LRUCache<string, Parsed>({ max: 2000 })

function parse(ua: string): Parsed {
  let p = parsed.get(ua)
  if (p !== undefined) return p
  p = {}
  try {
    const r = Bowser.parse(ua)
    if (r.browser.name) {
      p.browser = { name: r.browser.name }
      // Major, minor and patch, as Relay's parser gives them (`Chrome 120.0.0`, not `120.0.0.0`).
      if (r.browser.version) p.browser.version = r.browser.version.split('.').slice(0, 3).join('.')
    }
    if (r.os.name) {
      p.os = { name: r.os.name }
      // Windows by its marketing version (`10`), as Sentry shows it, not `NT 10.0`.
      const version = r.os.name === 'Windows' ? (r.os.versionName ?? r.os.version) : r.os.version
      if (version) p.os.version = version
    }
  } catch {
    p = {}
  }
  parsed.set(ua, p)
  return p
}

/**
 * Fills the `browser` and `os` contexts the event lacks from its request's `User-Agent`, as
 * Relay does: a browser SDK sends no browser context, only the page's request with its
 * User-Agent, and a server SDK's request is the end user's. So the `browser` tag and the
 * issue's browser distribution show what the users ran. A context the SDK sent is never
 * replaced (a server SDK's `os` is the server's); a User-Agent no parser knows adds nothing.
 */
export function fillUserAgentContexts(event: NormalizedEvent): void {
  const ua = requestHeader(event, 'user-agent')
  if (ua === undefined || ua === '' || ua.length > MAX_USER_AGENT) return
  const contexts = (event.contexts ?? {}) as Record<string, unknown>
  const needBrowser = contexts['browser'] === undefined
  const needOs = contexts['os'] === undefined
  if (!needBrowser && !needOs) return
  const p = parse(ua)
  if (needBrowser && p.browser !== undefined)
    contexts['browser'] = { ...p.browser, type: 'browser' }
  if (needOs && p.os !== undefined) contexts['os'] = { ...p.os, type: 'os' }
  if (event.contexts === undefined && Object.keys(contexts).length > 0) event.contexts = contexts
}
