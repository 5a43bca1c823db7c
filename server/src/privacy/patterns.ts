import { isIP } from 'node:net'

/**
 * The default scrubbing rules, after Relay's (relay-pii `regexes.rs`, `builtin.rs`,
 * `convert.rs`; summarised in docs/privacy.md). Each value rule finds secrets inside a string
 * and says what replaces the match, so the rest of a message stays readable.
 */

/** The text that replaces a scrubbed value (Relay's `[Filtered]`). */
export const FILTERED = '[Filtered]'
/** The text that replaces an IP address when a project stores none (Relay's `@ip:replace`). */
export const IP_MASK = '[ip]'

/**
 * Key names whose values are secrets (Relay's password rule plus Sentry's older list):
 * matched anywhere in the key, case-insensitively.
 */
export const SENSITIVE_KEY =
  /password|secret|passwd|api[-_]?key|auth|credentials|mysql_pwd|private[-_]?key|token|bearer|stripetoken|card\[number\]|^otp$|^two[-_]factor$/i

/** Session and CSRF cookie names Relay filters whatever their value (exact, case-insensitive). */
export const SESSION_COOKIES: ReadonlySet<string> = new Set([
  'sentrysid',
  'sudo',
  'su',
  'session',
  '__session',
  'sessionid',
  'user_session',
  'symfony',
  'phpsessid',
  'fasthttpsessionid',
  'mysession',
  'irissessionid',
  '_vercel_jwt',
  'csrf',
  'xsrf',
  '_xsrf',
  '_csrf',
  'csrf-token',
  'csrf_token',
  'xsrf-token',
  'xsrf_token',
  'fastcsrf',
  '_iris_csrf',
])

/** One value rule: where a secret is in a string and what the match becomes. */
export interface ValueRule {
  /** The remark's rule id (Relay's names: `@creditcard`, `@bearer`, …). */
  id: string
  /** Global regex; `replace` gets the match and its groups. */
  re: RegExp
  /**
   * A cheap test every string this rule could change passes (a literal or a short character
   * run), run first: most strings fail it, and the rule's own regex is far dearer per string.
   */
  guard: (s: string, facts: number) => boolean
  replace: (match: string, ...groups: string[]) => string | undefined
}

/** Luhn's checksum over the digits of `s`: card numbers pass, most other digit runs do not. */
export function luhn(s: string): boolean {
  let sum = 0
  let double = false
  let n = 0
  for (let i = s.length - 1; i >= 0; i--) {
    const c = s.charCodeAt(i) - 48
    if (c < 0 || c > 9) continue
    n++
    let d = c
    if (double) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
    double = !double
  }
  return n >= 13 && sum % 10 === 0
}

/** ISO 13616's mod-97 check of an IBAN (spaces ignored). */
export function ibanValid(s: string): boolean {
  const c = s.replace(/\s/g, '').toUpperCase()
  if (c.length < 15 || c.length > 34) return false
  const moved = c.slice(4) + c.slice(0, 4)
  let rem = 0
  for (const ch of moved) {
    const code = ch.charCodeAt(0)
    const v = code >= 65 ? String(code - 55) : ch
    for (const d of v) rem = (rem * 10 + (d.charCodeAt(0) - 48)) % 97
  }
  return rem === 1
}

/** Bits of {@link stringFacts}. */
const DIGITS4 = 1
const SEPARATOR = 2
const AT = 4
const DASH = 8
const UPPER_DIGIT = 16
const DIGIT_DASH = 32
const IP_LIKE = 64

/**
 * What one pass over a string's characters says about it, as bits: a run of four digits, a
 * `:` or `=`, an `@`, a `-`, an uppercase letter before a digit, a digit before a `-`, a digit
 * or hex digit next to a `.` or `:`. Each rule's guard reads them: one loop per string instead
 * of a regular expression per rule (a regex call costs more than the scan of a short string).
 */
export function stringFacts(s: string): number {
  let f = 0
  let run = 0
  let prev = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    const digit = c >= 48 && c <= 57
    if (digit) {
      run++
      if (run >= 4) f |= DIGITS4
      if (prev >= 65 && prev <= 90) f |= UPPER_DIGIT
      if (prev === 46 || prev === 58) f |= IP_LIKE
    } else {
      run = 0
      if (c === 58 || c === 61) f |= SEPARATOR
      else if (c === 64) f |= AT
      if (c === 45) {
        f |= DASH
        if (prev >= 48 && prev <= 57) f |= DIGIT_DASH
      }
      if ((c === 46 || c === 58) && ((prev >= 48 && prev <= 57) || (prev >= 97 && prev <= 102)))
        f |= IP_LIKE
    }
    prev = c
  }
  return f
}

/** `undefined` from a rule's `replace` keeps the match (a near miss: bad checksum). */
export const DEFAULT_VALUE_RULES: readonly ValueRule[] = [
  {
    id: '@pemkey',
    guard: (s, f) => (f & DASH) !== 0 && s.includes('PRIVATE KEY'),
    re: /-----BEGIN[A-Z ]{0,40}PRIVATE KEY-----(?:[\s\S]*?-----END[A-Z ]{0,40}PRIVATE KEY-----|[\s\S]*$)/g,
    replace: () => FILTERED,
  },
  {
    id: '@creditcard',
    guard: (_s, f) => (f & DIGITS4) !== 0,
    re: /\b(?:3[47]\d|4\d{3}|5[1-5]\d\d|65\d\d|6011)(?:[-\s]?\d){12}\b/g,
    replace: (m) => (luhn(m) ? FILTERED : undefined),
  },
  {
    id: '@bearer',
    guard: (s) => s.includes('earer') || s.includes('EARER'),
    re: /\b(Bearer\s+)([^\s"',;]+)/gi,
    replace: (_m, head) => `${head}${FILTERED}`,
  },
  {
    id: '@urlauth',
    guard: (s, f) => (f & AT) !== 0 && s.includes('://'),
    re: /\b([a-z][a-z0-9+.-]{0,30}:\/\/[^:/?#@\s]{0,200}):([^@/?#\s]{1,200})@/gi,
    replace: (_m, head) => `${head}:${FILTERED}@`,
  },
  {
    id: '@password',
    guard: (_s, f) => (f & SEPARATOR) !== 0,
    re: /\b(password|passwd|secret|api[-_]?key|access[-_]?token|token|auth)(["']?\s{0,3}[:=]\s{0,3}["']?)([^\s"'&;,]{1,400})/gi,
    replace: (_m, key, sep, value) =>
      value.startsWith(FILTERED) ? undefined : `${key}${sep}${FILTERED}`,
  },
  {
    id: '@iban',
    guard: (_s, f) => (f & UPPER_DIGIT) !== 0,
    re: /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b/g,
    replace: (m) => (ibanValid(m) ? FILTERED : undefined),
  },
  {
    id: '@usssn',
    guard: (_s, f) => (f & DIGIT_DASH) !== 0,
    re: /\b\d{3}-\d{2}-\d{4}\b/g,
    replace: () => FILTERED,
  },
]

/** IPv4 and IPv6 candidates, each confirmed with `net.isIP` (`std::io` is not an address). */
export const IP_RULE: ValueRule = {
  id: '@ip',
  guard: (_s, f) => (f & IP_LIKE) !== 0,
  re: /(?<![\w.:])(?:(?:\d{1,3}\.){3}\d{1,3}|(?=[0-9a-f:]*[0-9a-f])(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}(?:(?<=:)(?:\d{1,3}\.){3}\d{1,3})?)(?![\w.:])/gi,
  replace: (m) => (isIP(m) !== 0 ? IP_MASK : undefined),
}
