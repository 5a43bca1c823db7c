import { BlockList, isIP } from 'node:net'
import { requestHeader } from '../event/request-header.ts'
import type { NormalizedEvent } from '../event/types.ts'
import { compileGlobs, type Glob } from './glob.ts'
import type { InboundFilterSettings } from './settings.ts'

/**
 * Inbound filters: known noise dropped before it is stored or charged, after Relay's
 * relay-filter (`localhost.rs`, `browser_extensions.rs`, `legacy_browsers.rs`,
 * `web_crawlers.rs`, `error_messages.rs`, `releases.rs`, `client_ips.rs`). A filtered event is
 * counted as outcome `filtered` with the reason named as Relay names it.
 */

/** Why an event was filtered: the outcome's reason (Relay's `FilterStatKey`). */
export type FilterReason =
  | 'ip-address'
  | 'release-version'
  | 'error-message'
  | 'localhost'
  | 'browser-extensions'
  | 'legacy-browsers'
  | 'web-crawlers'

/** A project's filters, prepared (globs and address blocks built once per settings). */
export interface FilterPolicy {
  readonly localhost: boolean
  readonly browserExtensions: boolean
  readonly legacyBrowsers: boolean
  readonly webCrawlers: boolean
  readonly messages: Glob | undefined
  readonly releases: Glob | undefined
  readonly ips: BlockList | undefined
  /** Whether any filter is on (none: nothing to look at). */
  readonly any: boolean
}

/** Prepares a project's filter settings (the settings were validated when saved). */
export function filterPolicy(f: InboundFilterSettings): FilterPolicy {
  let ips: BlockList | undefined
  for (const entry of f.clientIps) {
    const [addr = '', bits] = entry.trim().split('/')
    const family = isIP(addr)
    if (family === 0) continue
    ips ??= new BlockList()
    const type = family === 4 ? 'ipv4' : 'ipv6'
    if (bits === undefined) ips.addAddress(addr, type)
    else ips.addSubnet(addr, Number(bits), type)
  }
  const messages = safeGlobs(f.errorMessages)
  const releases = safeGlobs(f.releases)
  return {
    localhost: f.localhost,
    browserExtensions: f.browserExtensions,
    legacyBrowsers: f.legacyBrowsers,
    webCrawlers: f.webCrawlers,
    messages,
    releases,
    ips,
    any:
      f.localhost ||
      f.browserExtensions ||
      f.legacyBrowsers ||
      f.webCrawlers ||
      messages !== undefined ||
      releases !== undefined ||
      ips !== undefined,
  }
}

/** Globs that were validated on save; one stored before a rule changed is skipped, not fatal. */
function safeGlobs(patterns: readonly string[]): Glob | undefined {
  try {
    return compileGlobs(patterns)
  } catch {
    return undefined
  }
}

/** The first filter that drops `event`, or undefined to keep it. */
export function inboundFilter(
  event: NormalizedEvent,
  clientIp: string | undefined,
  p: FilterPolicy,
): FilterReason | undefined {
  if (!p.any) return undefined
  if (p.ips !== undefined && clientIp !== undefined && ipIn(p.ips, clientIp)) return 'ip-address'
  if (p.releases !== undefined && event.release !== undefined && p.releases.test(event.release))
    return 'release-version'
  if (p.messages !== undefined && messageMatches(event, p.messages)) return 'error-message'
  if (p.localhost && isLocalhost(event)) return 'localhost'
  if (p.browserExtensions && fromBrowserExtension(event)) return 'browser-extensions'
  const ua = p.legacyBrowsers || p.webCrawlers ? userAgent(event) : undefined
  if (ua !== undefined) {
    if (p.legacyBrowsers && isLegacyBrowser(ua)) return 'legacy-browsers'
    if (p.webCrawlers && isWebCrawler(ua)) return 'web-crawlers'
  }
  return undefined
}

function ipIn(list: BlockList, ip: string): boolean {
  const family = isIP(ip)
  if (family === 0) return false
  return list.check(ip, family === 4 ? 'ipv4' : 'ipv6')
}

/** The message, and each exception as `Type: value`, `Type` and `value` (Relay's candidates). */
function messageMatches(event: NormalizedEvent, re: Glob): boolean {
  const le = event.logentry
  const msg = le?.formatted ?? le?.message
  if (msg !== undefined && re.test(msg)) return true
  for (const e of event.exception?.values ?? []) {
    if (e.type !== undefined && e.value !== undefined && re.test(`${e.type}: ${e.value}`))
      return true
    if (e.type !== undefined && re.test(e.type)) return true
    if (e.value !== undefined && re.test(e.value)) return true
  }
  return false
}

const LOCAL_IPS = new Set(['127.0.0.1', '::1'])

function localHost(host: string): boolean {
  const h = host.toLowerCase().replace(/:\d+$/, '')
  return h === 'localhost' || h.endsWith('.localhost') || h === '127.0.0.1' || h === '[::1]'
}

/** Relay's localhost rule: the user's address, the request URL, else the Host header. */
export function isLocalhost(event: NormalizedEvent): boolean {
  const ip = event.user?.['ip_address']
  if (typeof ip === 'string' && LOCAL_IPS.has(ip)) return true
  const forwarded = requestHeader(event, 'x-forwarded-for')
  if (forwarded !== undefined && LOCAL_IPS.has(forwarded.trim())) return true
  const url = event.request?.['url']
  if (typeof url === 'string' && url !== '') {
    let u: URL
    try {
      u = new URL(url)
    } catch {
      return false
    }
    return u.protocol === 'file:' || localHost(u.hostname)
  }
  const host = requestHeader(event, 'x-forwarded-host') ?? requestHeader(event, 'host')
  return host !== undefined && localHost(host)
}

const userAgent = (event: NormalizedEvent): string | undefined => requestHeader(event, 'user-agent')

const EXTENSION_MESSAGES = new RegExp(
  [
    'top\\.GLOBALS',
    'originalCreateNotification',
    'canvas\\.contentDocument',
    'MyApp_RemoveAllHighlights',
    'tt\\.epicplay\\.com',
    "Can't find variable: ZiteReader",
    'jigsaw is not defined',
    'ComboSearch is not defined',
    'loading\\.retry\\.widdit\\.com',
    'atomicFindClose',
    'fb_xd_fragment',
    'bmi_SafeAddOnload',
    'EBCallBackMessageReceived',
    '_gCrWeb',
    'conduitPage',
    "null is not an object \\(evaluating 'elt\\.parentNode'\\)",
    'plugin\\.setSuspendState is not a function',
    'Extension context invalidated',
    'webkit-masked-url:',
    "can't access dead object",
  ].join('|'),
)

const EXTENSION_SOURCES = new RegExp(
  [
    'graph\\.facebook\\.com',
    'connect\\.facebook\\.net',
    'eatdifferent\\.com\\.woopra-ns\\.com',
    'static\\.woopra\\.com/js/woopra\\.js',
    '^chrome(?:-extension)?://',
    '^moz-extension://',
    '^safari(?:-web)?-extension://',
    'webkit-masked-url',
    '127\\.0\\.0\\.1:4001/isrunning',
    'webappstoolbarba\\.texthelp\\.com/',
    'metrics\\.itunes\\.apple\\.com\\.edgesuite\\.net/',
    'kaspersky-labs\\.com',
  ].join('|'),
  'i',
)

/** The first exception's value, or the source of its last frame, says a browser extension threw. */
export function fromBrowserExtension(event: NormalizedEvent): boolean {
  const first = event.exception?.values[0]
  if (first === undefined) return false
  if (first.value !== undefined && EXTENSION_MESSAGES.test(first.value)) return true
  const frames = first.stacktrace?.frames ?? []
  for (let i = frames.length - 1; i >= 0; i--) {
    const path = frames[i]?.abs_path
    if (path === undefined || path === '<anonymous>') continue
    return EXTENSION_SOURCES.test(path)
  }
  return false
}

const CRAWLERS =
  /Mediapartners-Google|AdsBot-Google|Googlebot|FeedFetcher-Google|BingBot|BingPreview|Baiduspider|Slurp|Sogou|facebook|ia_archiver|bots?[/\s);]|spider[/\s);]|Slack|Calypso AppCrawler|pingdom|lyticsbot|AWS Security Scanner|HubSpot Crawler|Bytespider|Better Uptime/i

/** A crawler's user agent (Relay's list; Slackbot 1.x is a link expander, not a crawler). */
export function isWebCrawler(ua: string): boolean {
  return CRAWLERS.test(ua) && !/Slackbot 1\.\d+/i.test(ua)
}

const num = (m: RegExpExecArray | null): number | undefined =>
  m === null ? undefined : Number(m[1])

/**
 * Relay's default legacy set: Internet Explorer before 10, Safari before 6, Opera before 15,
 * Opera Mini before 8, the Android browser before 4. Parsed from the user agent.
 */
export function isLegacyBrowser(ua: string): boolean {
  const ie = num(/MSIE (\d+)/.exec(ua))
  if (ie !== undefined) return ie < 10
  const mini = num(/Opera Mini\/(\d+)/.exec(ua))
  if (mini !== undefined) return mini < 8
  if (/\bOpera\b/.test(ua)) {
    const v = num(/Version\/(\d+)/.exec(ua)) ?? num(/Opera[/ ](\d+)/.exec(ua))
    return v !== undefined && v < 15
  }
  if (/Chrome|Chromium|CriOS|FxiOS|Firefox|OPR\//.test(ua)) return false
  const android = num(/Android (\d+)/.exec(ua))
  if (android !== undefined) return android < 4
  if (/Safari\//.test(ua)) {
    const v = num(/Version\/(\d+)/.exec(ua))
    return v !== undefined && v < 6
  }
  return false
}
