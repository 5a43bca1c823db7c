import { isIP } from 'node:net'
import { globError } from './glob.ts'

/**
 * A project's data-scrubbing and inbound-filter settings: small, plain JSON, so it travels
 * with a request's digest scope to whichever thread digests the event (the SQLite writer, a
 * digest thread) and is stored as it is (store/queries/project-privacy.ts).
 */
export interface PrivacySettings {
  /** Server-side scrubbing at all (Sentry's "Data Scrubber"). */
  scrub: boolean
  /** The default rules (sensitive key names, value patterns, session cookies). */
  scrubDefaults: boolean
  /** Extra key names: a key or a value containing one (case-insensitive) is filtered. */
  sensitiveFields: string[]
  /** Key names never scrubbed, nor anything below them (case-insensitive, exact). */
  safeFields: string[]
  /** "Prevent storing of IP addresses": known IP fields removed, addresses → `[ip]`. */
  scrubIp: boolean
  filters: InboundFilterSettings
}

/** Which inbound filters drop events before they are stored (privacy/filters.ts). */
export interface InboundFilterSettings {
  localhost: boolean
  browserExtensions: boolean
  legacyBrowsers: boolean
  webCrawlers: boolean
  /** Case-insensitive globs against the message and each exception's `Type: value`. */
  errorMessages: string[]
  /** Case-insensitive globs against `release`. */
  releases: string[]
  /** Client addresses or CIDR blocks (IPv4 and IPv6). */
  clientIps: string[]
}

/** The settings of a project created from now on (Sentry's defaults for a new project). */
export const NEW_PROJECT_PRIVACY: PrivacySettings = Object.freeze({
  scrub: true,
  scrubDefaults: true,
  sensitiveFields: [],
  safeFields: [],
  scrubIp: false,
  filters: Object.freeze({
    localhost: false,
    browserExtensions: true,
    legacyBrowsers: false,
    webCrawlers: true,
    errorMessages: [],
    releases: [],
    clientIps: [],
  }),
}) as PrivacySettings

/**
 * The settings of a project that existed before scrubbing and filters did: scrubbing on (it
 * protects everyone), no filter (dropping events a project used to keep would surprise).
 * The migration stores these for every project it finds.
 */
export const EXISTING_PROJECT_PRIVACY: PrivacySettings = {
  ...NEW_PROJECT_PRIVACY,
  filters: { ...NEW_PROJECT_PRIVACY.filters, browserExtensions: false, webCrawlers: false },
}

/** Limits of the lists (the API refuses more, naming the entry). */
export const PRIVACY_LIMITS = {
  /** Entries per list. */
  entries: 100,
  /** Characters per entry. */
  entryLength: 200,
} as const

/** A settings entry that does not parse: which list, which entry, why. */
export interface SettingsProblem {
  field: string
  detail: string
}

/**
 * Checks every list of a settings object: globs must parse, addresses must be IPs or CIDR
 * blocks, field names non-empty, lists and entries within {@link PRIVACY_LIMITS}. The first
 * problem is returned with the entry named, so the API can answer 400 without saving.
 */
export function settingsProblem(s: PrivacySettings): SettingsProblem | undefined {
  const lists: [string, string[], (v: string) => string | undefined][] = [
    ['sensitive_fields', s.sensitiveFields, fieldError],
    ['safe_fields', s.safeFields, fieldError],
    ['filters.error_messages', s.filters.errorMessages, globError],
    ['filters.releases', s.filters.releases, globError],
    ['filters.client_ips', s.filters.clientIps, cidrError],
  ]
  for (const [field, list, check] of lists) {
    if (list.length > PRIVACY_LIMITS.entries)
      return {
        field,
        detail: `${field}: ${list.length} entries, at most ${PRIVACY_LIMITS.entries}`,
      }
    for (const [i, entry] of list.entries()) {
      const shown = JSON.stringify(entry.slice(0, 80))
      if (entry.length > PRIVACY_LIMITS.entryLength)
        return {
          field,
          detail: `${field}[${i}] ${shown}…: longer than ${PRIVACY_LIMITS.entryLength} characters`,
        }
      const why = check(entry)
      if (why !== undefined) return { field, detail: `${field}[${i}] ${shown}: ${why}` }
    }
  }
  return undefined
}

function fieldError(v: string): string | undefined {
  return v.trim() === '' ? 'an empty field name' : undefined
}

/** Why an entry is not an IP address or a CIDR block (`10.0.0.0/8`, `2001:db8::/32`). */
export function cidrError(v: string): string | undefined {
  const [addr = '', bits, ...rest] = v.trim().split('/')
  const family = isIP(addr)
  if (family === 0 || rest.length > 0) return 'not an IP address or CIDR block'
  if (bits === undefined) return undefined
  const n = /^\d{1,3}$/.test(bits) ? Number(bits) : Number.NaN
  const max = family === 4 ? 32 : 128
  if (!(n >= 0 && n <= max)) return `prefix length must be 0–${max}`
  return undefined
}

/** Reads stored settings leniently: anything missing or of the wrong type takes its default. */
export function settingsFrom(
  v: unknown,
  base: PrivacySettings = NEW_PROJECT_PRIVACY,
): PrivacySettings {
  const o = isRecord(v) ? v : {}
  const f = isRecord(o['filters']) ? o['filters'] : {}
  const bool = (x: unknown, d: boolean): boolean => (typeof x === 'boolean' ? x : d)
  const list = (x: unknown, d: string[]): string[] =>
    Array.isArray(x) ? x.filter((e): e is string => typeof e === 'string') : d
  const bf = base.filters
  return {
    scrub: bool(o['scrub'], base.scrub),
    scrubDefaults: bool(o['scrubDefaults'], base.scrubDefaults),
    sensitiveFields: list(o['sensitiveFields'], base.sensitiveFields),
    safeFields: list(o['safeFields'], base.safeFields),
    scrubIp: bool(o['scrubIp'], base.scrubIp),
    filters: {
      localhost: bool(f['localhost'], bf.localhost),
      browserExtensions: bool(f['browserExtensions'], bf.browserExtensions),
      legacyBrowsers: bool(f['legacyBrowsers'], bf.legacyBrowsers),
      webCrawlers: bool(f['webCrawlers'], bf.webCrawlers),
      errorMessages: list(f['errorMessages'], bf.errorMessages),
      releases: list(f['releases'], bf.releases),
      clientIps: list(f['clientIps'], bf.clientIps),
    },
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v)
