/**
 * Replaces the variable parts of a message (ids, numbers, addresses, dates) with `<name>`
 * placeholders, so that messages differing only in such values group together
 * (protocol.md §8.7). One combined regex, scanned left to right; at each position the first
 * alternative that matches wins, so the order of `PATTERNS` matters.
 *
 * Linear time: every alternative that can scan an unbounded run either starts with a guard that
 * fails inside that run (a lookbehind on its own first-character class, or `\b`), or is bounded.
 * A regex engine that backtracks would otherwise restart the scan at every character (O(n²)).
 */

const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)'
const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)'
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)'
const ZONE = '(?:[+-]\\d{4}|UT|GMT|[ECMP][SD]T|[A-IK-Z])'
const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)'
const IPV4 = `(?:${OCTET}\\.){3}${OCTET}`
const H16 = '[0-9a-fA-F]{1,4}'

/** The most common top-level domains; a full list would mostly add false positives. */
const TLDS =
  'com|net|org|jp|de|uk|fr|br|it|ru|es|me|gov|pl|ca|au|cn|co|in|nl|edu|info|eu|ch|id|at|kr|cz|' +
  'mx|be|tv|se|tr|tw|al|ua|ir|vn|cl|sk|ly|cc|to|no|fi|us|pt|dk|ar|hu|tk|gr|il|news|ro|my|biz|' +
  'ie|za|nz|sg|ee|th|io|xyz|pe|bg|hk|rs|lt|link|ph|club|si|site|mobi|by|cat|wiki|la|ga|xxx|cf|' +
  'hr|ng|jobs|online|kz|ug|gq|ae|is|lv|pro|fm|tips|ms|sa|app|dev|cloud|ai|local|internal'

/** IPv6 forms, mapped IPv4 first so that `::ffff:10.0.0.1` is not cut at the first dot. */
const IPV6 = [
  `::(?:ffff(?::0{1,4})?:)?${IPV4}`,
  `(?:${H16}:){1,4}:${IPV4}`,
  `fe80:(?::[0-9a-fA-F]{0,4}){0,4}%[0-9a-zA-Z]{1,16}`,
  `(?:${H16}:){7}${H16}`,
  `(?:${H16}:){1,7}:`,
  `(?:${H16}:){1,6}:${H16}`,
  `(?:${H16}:){1,5}(?::${H16}){1,2}`,
  `(?:${H16}:){1,4}(?::${H16}){1,3}`,
  `(?:${H16}:){1,3}(?::${H16}){1,4}`,
  `(?:${H16}:){1,2}(?::${H16}){1,5}`,
  `${H16}:(?::${H16}){1,6}`,
  `:(?:(?::${H16}){1,7}|:)`,
].join('|')

const DATES = [
  // RFC 822 / 1123: `Tue, 3 Jun 2008 11:05:30 GMT`
  `${DAY},\\s\\d{1,2}\\s${MONTH}\\s\\d{2,4}\\s\\d{1,2}:\\d{2}(?::\\d{2})?\\s${ZONE}`,
  // RFC 850: `Tuesday, 03-Jun-08 11:05:30 GMT`
  `${LONG_DAY},\\s\\d{2}-${MONTH}-\\d{2}\\s\\d{2}:\\d{2}:\\d{2}\\s${ZONE}`,
  // JS Date.toString(): `Tue Jun 03 2008 11:05:30 GMT+0200 (Central European Summer Time)`
  `${DAY}\\s${MONTH}\\s\\d{2}\\s\\d{4}\\s\\d{2}:\\d{2}:\\d{2}\\sGMT[+-]\\d{4}(?:\\s\\([^)]{1,64}\\))?`,
  // ANSI C / `date`: `Tue Jun  3 11:05:30 2008`
  `(?:${DAY}\\s{1,2})?${MONTH}\\s{1,2}\\d{1,2}\\s\\d{2}:\\d{2}:\\d{2}\\s\\d{4}`,
  // `Jun 03, 2008`
  `(?:${DAY}\\s)?${MONTH}\\s[0-3]\\d,\\s\\d{2,4}`,
  // ISO 8601 / RFC 3339 date-times, with or without fraction and zone
  '(?<!\\d)\\d{4}-?[01]\\d-?[0-3]\\d[T\\s][0-2]\\d:?[0-5]\\d(?::?[0-5]\\d(?:[.,]\\d{1,9})?)?' +
    '(?:Z|[+-][0-2]\\d(?::?[0-5]\\d)?)?(?!\\d)',
  // plain date
  '(?<!\\d)\\d{4}-[01]\\d-[0-3]\\d(?!\\d)',
  // clock times, 12 h (optional am/pm) and 24 h
  '(?<!\\d)(?:1[0-2]|[1-9]):[0-5]\\d(?::[0-5]\\d)?(?![\\d:])(?:\\s?[aApP][mM]\\b)?',
  '(?<!\\d)(?:2[0-3]|[01]?\\d):[0-5]\\d(?::[0-5]\\d)?(?:[.,]\\d{1,9})?(?![\\d:])',
  // Python repr: `datetime.datetime(2024, 1, 2, 3, 4, 5)`
  'datetime\\.datetime\\([\\d, ]{1,64}(?:tzinfo=[^)]{0,64})?\\)',
].join('|')

/** Pattern name (it becomes the placeholder) and regex source, in priority order. */
const PATTERNS: readonly (readonly [string, string])[] = [
  ['email', '(?<![\\w.+%-])[\\w.+%-]+@[a-zA-Z0-9-]+(?:\\.[a-zA-Z0-9-]+){0,16}\\.[a-zA-Z]{2,}\\b'],
  ['url', '\\b(?:wss?|https?|ftp)://[^\\s/$.?#]\\S*'],
  [
    'hostname',
    `(?<![\\w.-])(?:[a-zA-Z0-9][a-zA-Z0-9-]{0,62}\\.){1,16}(?:${TLDS}|${TLDS.toUpperCase()})(?![\\w-])`,
  ],
  ['ip', `(?<![\\w:])(?:${IPV6})(?![\\w:])|\\b${IPV4}\\b`],
  ['traceparent', '\\b00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]\\b|\\b1-[0-9a-f]{8}-[0-9a-f]{24}\\b'],
  ['uuid', '\\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\\b'],
  ['sha1', '\\b[0-9a-fA-F]{40}\\b'],
  ['md5', '\\b[0-9a-fA-F]{32}\\b'],
  ['date', DATES],
  ['duration', '(?<![\\w.])\\d+(?:\\.\\d+)?(?:ms|s)\\b'],
  [
    'hex',
    '\\b0[xX][0-9a-fA-F]+\\b|' +
      '\\b(?=[a-f]*\\d)(?=\\d*[a-f])[0-9a-f]{8,128}\\b|\\b(?=[A-F]*\\d)(?=\\d*[A-F])[0-9A-F]{8,128}\\b',
  ],
  ['float', '(?:(?<!\\w)-)?\\b\\d+\\.\\d+\\b'],
  ['int', '(?:(?<!\\w)-)?\\b\\d+\\b'],
  ['quoted_str', `(?<==)(?:'[^']+'|"[^"]+")`],
  ['bool', '(?<==)(?:[Tt]rue|[Ff]alse)\\b'],
]

/**
 * One capturing group per pattern (the sources have no capturing groups of their own), so
 * group `i + 1` matched means `PATTERNS[i]` did. Shared and run with `exec` from `lastIndex`:
 * `matchAll` would clone this large regex and build a named-groups object on every call.
 */
const COMBINED = new RegExp(PATTERNS.map(([, source]) => `(${source})`).join('|'), 'g')
const PLACEHOLDERS = PATTERNS.map(([name]) => `<${name}>`)
if (new RegExp(`${COMBINED.source}|`).exec('')?.length !== PATTERNS.length + 1) {
  throw new Error('parameterize: a pattern source has a capturing group; use (?:…)')
}

/** Replaces variable values in `text` with placeholders such as `<int>` or `<email>`. */
export function parameterize(text: string): string {
  let out = ''
  let last = 0
  COMBINED.lastIndex = 0
  for (let m = COMBINED.exec(text); m !== null; m = COMBINED.exec(text)) {
    let group = 1
    while (group < m.length && m[group] === undefined) group++
    out += text.slice(last, m.index) + (PLACEHOLDERS[group - 1] ?? '<unknown>')
    last = m.index + m[0].length
    // An empty match would loop forever; no pattern matches empty, but stay safe.
    if (m[0].length === 0) COMBINED.lastIndex++
  }
  return out + text.slice(last)
}
