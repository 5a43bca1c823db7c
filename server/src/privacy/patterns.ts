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
  /password|secret|passwd|api[-_]?key|auth|credentials|mysql_pwd|private[-_]?key|token|bearer|stripetoken|card\[number\]|cvv|cvc|^otp$|^two[-_]factor$/i

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

/**
 * The character that joins an event's strings into the one text the value rules' detectors
 * scan (see `ValueRule.find`): neither a word character, nor whitespace, nor one the rules'
 * lookarounds accept, so `\b`, `\s` and the lookarounds judge a join as they judge a string's
 * ends, and a rule that matches inside one string matches in the joined text.
 */
export const JOIN = '\u0001'

/** One value rule: where a secret is in a string and what the match becomes. */
export interface ValueRule {
  /** The remark's rule id (Relay's names: `@creditcard`, `@bearer`, …). */
  id: string
  /** Where the rule applies among the others (they apply to a string in this order). */
  order: number
  /** Global regex; `replace` gets the match and its groups. */
  re: RegExp
  /**
   * Run once on all of an event's strings joined by {@link JOIN}: one scan of one text per
   * rule instead of a regex call per string and rule (the call, not the scan, is what costs on
   * the many short strings of an event). False only when no string holds what `re` matches: by
   * default `re` itself without its global flag; a cheaper superset where `re` is slow to
   * reject (it may straddle a join: a false alarm, the strings are then tested one by one).
   */
  readonly find: (text: string) => boolean
  replace: (match: string, ...groups: string[]) => string | undefined
  /**
   * Whether a match in a line of source code (a frame's context lines; `before` is the line's
   * text before the match) is code, not a secret, and stays as sent; a rule without it applies
   * to source lines as to any string.
   */
  keepInCode?: (before: string, ...groups: string[]) => boolean
}

/**
 * The shortest string a default value rule can change (`auth=x`): shorter ones are not
 * scanned. The IP rule's shortest is `::`.
 */
export const MIN_SECRET_LENGTH = 6

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

/** A value rule; its {@link ValueRule.find} is `find`, else `re` without its global flag. */
function rule(
  r: Omit<ValueRule, 'find'> & { find?: RegExp | ((text: string) => boolean) },
): ValueRule {
  const find = r.find ?? new RegExp(r.re.source, r.re.flags.replace('g', ''))
  return { ...r, find: find instanceof RegExp ? (t) => find.test(t) : find }
}

const OPENER: Readonly<Record<string, string>> = { ')': '(', ']': '[', '}': '{', '>': '<' }

/**
 * A value cut from its unmatched closing brackets: `hunter2]` in `[…: password=hunter2]` (a
 * Java exception message in a Tomcat log line), `x}` in a `Map.toString()` `{user=bob,
 * password=x}`. The brackets stay after the `[Filtered]`; a bracket the value opened itself
 * (`pa(ss)`) is part of it.
 */
function splitClosers(value: string): [string, string] {
  let end = value.length
  while (end > 0) {
    const c = value[end - 1] as string
    const open = OPENER[c]
    if (open === undefined) break
    const inner = value.slice(0, end - 1)
    if (inner.split(open).length > inner.split(c).length) break
    end--
  }
  return [value.slice(0, end), value.slice(end)]
}

/** A name path with a member access, a call or an index: `request.form[`, `os.environ.get(`. */
const EXPRESSION = /^[A-Za-z_$][\w$]*(?:(?:\.|\?\.|::|->)[A-Za-z_$][\w$]*)*(?:\.|[([])/
/** The literals of the languages whose source lines SDKs send, that are no secret. */
const CODE_LITERALS = new Set([
  'None',
  'True',
  'False',
  'null',
  'nil',
  'undefined',
  'true',
  'false',
])

/**
 * Whether what follows a secret's name in a source line, unquoted, is code rather than a
 * secret written into it: an expression (`password = request.form["password"]`,
 * `secret = req.body.secret`), a language literal (`api_key=None):`), the start of a structure
 * (`"auth": {`), or the same name passed on (`api_key=api_key`). A bare word
 * (`password = hunter2`, `password=hunter2` inside a string literal) is no code and is filtered.
 */
function isCode(before: string, key: string, value: string): boolean {
  if (/^[{[(]/.test(value) || EXPRESSION.test(value)) return true
  const core = value.replace(/[)\]}>:]+$/, '')
  if (CODE_LITERALS.has(core)) return true
  const name = (/[\w$]*$/.exec(before)?.[0] ?? '') + key
  return core === name
}

/** A log template's placeholder: `{}`, `{0}`, `{name}`, `%s`, `%d`, `%(name)s`, `%1$s`. */
const PLACEHOLDER = /^(?:\{\w*\}|%(?:\(\w+\))?[-+ #0-9.$]*[a-zA-Z])$/

/**
 * Relay's password rule read on a value (relay-pii `PatternType::KeyValue`: where the key did not
 * match, a value in which the rule's pattern is found is replaced whole): a free-form string that
 * mentions a password, a secret, an API key, `auth`, credentials, a private key, or `token`
 * followed by `:` or `=` (`the password is hunter2`, `AWS_SECRET_ACCESS_KEY=…`,
 * `https://…?token=…`). Relay's `token[^\s]*[:=]` is bounded here (64 characters between the
 * word and its separator) so that a long run of `token` cannot make the scan quadratic. Not
 * applied where Relay does not apply it, nor to the names and texts a user reads (see `scrub.ts`
 * `whole`). Relay's `^otp$` and `^two[-_]factor$` are key names only here: as values they hold
 * nothing secret.
 */
export const PASSWORD_IN_VALUE =
  /password|secret|passwd|api[-_]?key|auth|credentials|mysql_pwd|private[-_]?key|token[^\s:=]{0,64}[:=]/i

/** The shortest string {@link PASSWORD_IN_VALUE} matches (`auth`). */
export const MIN_PASSWORD_IN_VALUE = 4

/** The key words of the `@password` value rule, lowercase ({@link keyBeforeSeparator}). */
const PASSWORD_WORDS = [
  'password',
  'passwd',
  'secret',
  'apikey',
  'api_key',
  'api-key',
  'token',
  'auth',
  'authorization',
  // A key's secret half under its usual names (`AWS_SECRET_ACCESS_KEY=`, `private_key:`).
  'accesskey',
  'access_key',
  'access-key',
  'secretkey',
  'secret_key',
  'secret-key',
  'privatekey',
  'private_key',
  'private-key',
  // A session cookie written out (`('Cookie', 'sessionid=…')` in a repr of request headers).
  'sessionid',
  'sessid',
]

/** Whether `text` ends at `end` (exclusive) with `word`, ASCII letters compared caselessly. */
function endsWithWord(text: string, end: number, word: string): boolean {
  const start = end - word.length
  if (start < 0) return false
  for (let k = 0; k < word.length; k++) {
    const c = text.charCodeAt(start + k)
    // Only A–Z folded: `_` | 0x20 would be DEL.
    if ((c >= 65 && c <= 90 ? c | 0x20 : c) !== word.charCodeAt(k)) return false
  }
  return true
}

/**
 * Whether `text` names a secret just before `end`: one of the `@password` rule's key words,
 * then at most three blanks, quotes, `:` or `=` (`password %s`, `token=%s`, `api_key: '{}'`).
 * For a log template's placeholders: the parameter after such a name is the secret itself.
 */
export function secretNameBefore(text: string, end: number): boolean {
  let j = end
  for (let n = 0; n < 3 && j > 0; n++) {
    const c = text.charCodeAt(j - 1)
    if (c === 32 || c === 9 || c === 34 || c === 39 || c === 58 || c === 61) j--
    else break
  }
  return j !== end && keyWordEndsAt(text, j)
}

/**
 * The `@password` rule's detector: each `:` and `=` (found natively, `indexOf`) is looked at
 * backwards for the rule's shape, up to three blanks, an optional quote, a key word. A superset
 * of the rule's regex (no \b, any value), far cheaper than that regex on a long text, which
 * tries its alternatives at every word.
 */
export function keyBeforeSeparator(text: string): boolean {
  return separatorAfterWord(text, ':') || separatorAfterWord(text, '=')
}

function separatorAfterWord(text: string, sep: string): boolean {
  for (let i = text.indexOf(sep); i >= 0; i = text.indexOf(sep, i + 1)) {
    let j = i
    // Blanks: ASCII whitespace, or any non-ASCII character (a superset of \s).
    for (let n = 0; n < 3 && j > 0; n++) {
      const c = text.charCodeAt(j - 1)
      if (c === 32 || (c >= 9 && c <= 13) || c >= 128) j--
      else break
    }
    const q = text.charCodeAt(j - 1)
    if (q === 34 || q === 39) j--
    // The words end in d, t, y, n or h: most separators are rejected on that one letter.
    const last = text.charCodeAt(j - 1) | 0x20
    if (last !== 100 && last !== 116 && last !== 121 && last !== 110 && last !== 104) continue
    if (keyWordEndsAt(text, j)) return true
  }
  return false
}

/** Whether one of the `@password` rule's key words ends at `end` (exclusive) in `text`. */
function keyWordEndsAt(text: string, end: number): boolean {
  for (const w of PASSWORD_WORDS) if (endsWithWord(text, end, w)) return true
  return false
}

/**
 * Access tokens whose format says what they are, wherever they stand (an environment dump, a
 * log line, a URL): the prefixes their issuers put on them so that leaks can be found
 * (GitHub, GitLab, Stripe, Slack, AWS access key ids, Google API keys, npm, Sentry, OpenAI and
 * Anthropic), and JSON Web Tokens (`eyJ…` header and payload, then the signature). Relay has
 * no such rule: a token under a key like `GITHUB_PAT` or in plain text would be stored as
 * sent. Each needs its prefix and enough token characters after it, so prose and identifiers
 * that merely start the same way are kept.
 * A token starts where no letter or digit stands before it (the lookbehind; a JSON Web Token
 * where no token character does): `eyJ-eyJ-…` tried at every repeat would read up to its
 * quantifiers' bound ahead each time (0.3 s for 100 KB of `eyJ-`); the other formats' tries read
 * a few hundred characters at most, so the scan stays linear.
 */
const TOKEN_FORMATS: readonly [start: string, rest: string, after?: string][] = [
  ['gh[pousr]_', '[A-Za-z0-9]{36,251}'],
  ['github_pat_', '[A-Za-z0-9_]{22,244}'],
  ['glpat-', '[A-Za-z0-9_-]{20,200}'],
  ['[rs]k_(?:live|test)_', '[A-Za-z0-9]{16,247}'],
  [String.raw`xox[abeprs]-\d`, String.raw`\d{0,19}-[A-Za-z0-9-]{8,250}`],
  // An AWS key id glued to a lower-case word (`keyAKIA…`) is one too.
  ['A[KS]IA', '[A-Z0-9]{16}', 'A-Z0-9'],
  ['AIza', '[A-Za-z0-9_-]{35}'],
  ['npm_', '[A-Za-z0-9]{36}'],
  ['sntry[su]_', '[A-Za-z0-9_+/=.-]{20,400}'],
  ['sk-(?:proj|ant|svcacct|admin)-', '[A-Za-z0-9_-]{20,400}'],
  // Only here a run of token characters before the start makes it no token: its parts are
  // long, and `eyJ-eyJ-…` tried at every repeat would read kilobytes ahead each time.
  [
    'eyJ',
    String.raw`[A-Za-z0-9_-]{8,2000}\.eyJ[A-Za-z0-9_-]{8,8000}\.[A-Za-z0-9_-]{0,2000}`,
    'A-Za-z0-9_-',
  ],
]

/**
 * A token may follow a word joined by `-` or `_` (`uid-ghp_…`, `x_sk_live_…`): no letter or digit
 * right before it, unless the format says otherwise. Each try reads at most a few hundred
 * characters, so the scan stays linear.
 */
const API_TOKEN = new RegExp(
  TOKEN_FORMATS.map(
    ([start, rest, after = 'A-Za-z0-9']) => `(?<![${after}])${start}${rest}(?![A-Za-z0-9_-])`,
  ).join('|'),
  'g',
)

/**
 * The token rule's detector: the literal starts of {@link TOKEN_FORMATS}, a superset the scan
 * rejects at most positions on their first letter.
 */
const TOKEN_START = new RegExp(TOKEN_FORMATS.map(([start]) => start).join('|'))

/** `undefined` from a rule's `replace` keeps the match (a near miss: bad checksum). */
export const DEFAULT_VALUE_RULES: readonly ValueRule[] = [
  rule({
    order: 1,
    id: '@pemkey',
    re: /-----BEGIN[A-Z ]{0,40}PRIVATE KEY-----(?:[\s\S]*?-----END[A-Z ]{0,40}PRIVATE KEY-----|[\s\S]*$)/g,
    replace: () => FILTERED,
  }),
  rule({
    order: 2,
    id: '@creditcard',
    re: /\b(?:3[47]\d|4\d{3}|5[1-5]\d\d|65\d\d|6011)(?:[-\s]?\d){12}\b/g,
    replace: (m) => (luhn(m) ? FILTERED : undefined),
  }),
  rule({
    order: 3,
    id: '@bearer',
    re: /\b(Bearer\s+)([^\s"',;]+)/gi,
    replace: (_m, head) => `${head}${FILTERED}`,
  }),
  rule({
    order: 4,
    id: '@urlauth',
    // The scheme's part left out: a literal start, which the scan finds natively.
    find: /:\/\/[^:/?#@\s]{0,200}:[^@/?#\s]{1,200}@/,
    re: /\b([a-z][a-z0-9+.-]{0,30}:\/\/[^:/?#@\s]{0,200}):([^@/?#\s]{1,200})@/gi,
    replace: (_m, head) => `${head}:${FILTERED}@`,
  }),
  rule({
    order: 5,
    id: '@password',
    find: keyBeforeSeparator,
    // The key word may end a longer name (`db_password=`, `refresh_token=`, `client_secret:`),
    // as Relay's key rule matches it anywhere in a key; only the value is replaced. After
    // `Authorization:` the scheme (`Basic`, `Digest`, …) stays and the credentials go.
    re: /(password|passwd|secret|api[-_]?key|(?:access|secret|private)[-_]?key|token|authorization|auth|sessionid|sessid)(["']?\s{0,3}[:=]\s{0,3}["']?)((?:basic|bearer|digest|negotiate|ntlm|token)\s+)?([^\s"'&;,]{1,400})/gi,
    // A log template's placeholder (`password={}`, `token=%s`) is no secret: the template,
    // which grouping reads, stays as sent (its parameter is judged by `secretParams`).
    replace: (_m, key, sep, scheme, value) => {
      const [secret, closers] = splitClosers(value)
      return secret === '' || secret.startsWith(FILTERED) || PLACEHOLDER.test(secret)
        ? undefined
        : `${key}${sep}${scheme}${FILTERED}${closers}`
    },
    keepInCode: (before, key, sep, scheme, value) =>
      scheme === '' && !/["'`]$/.test(sep) && isCode(before, key ?? '', value ?? ''),
  }),
  rule({
    order: 6,
    id: '@iban',
    re: /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b/g,
    replace: (m) => (ibanValid(m) ? FILTERED : undefined),
  }),
  rule({
    order: 7,
    id: '@usssn',
    re: /\b\d{3}-\d{2}-\d{4}\b/g,
    replace: () => FILTERED,
  }),
  rule({
    order: 9,
    id: '@apitoken',
    find: TOKEN_START,
    re: API_TOKEN,
    replace: () => FILTERED,
  }),
]

/**
 * What scans the joined text of an event's strings for some rules at once (one regex whose
 * alternatives share a cheap first character test costs about one scan, not one per rule).
 * `scan` is false only when none of `rules` can change any of the strings.
 */
export interface Detector {
  readonly scan: (text: string) => boolean
  readonly rules: readonly ValueRule[]
}

const byId = (id: string): ValueRule => {
  const r = DEFAULT_VALUE_RULES.find((x) => x.id === id)
  if (r === undefined) throw new Error(`no value rule ${id}`)
  return r
}

const regexScan =
  (re: RegExp) =>
  (text: string): boolean =>
    re.test(text)

/** The default value rules, grouped for the joined-text scan. */
export const DEFAULT_DETECTORS: readonly Detector[] = [
  {
    // Digit runs: card numbers and US social security numbers.
    scan: regexScan(
      /\b(?:(?:3[47]\d|4\d{3}|5[1-5]\d\d|65\d\d|6011)(?:[-\s]?\d){12}|\d{3}-\d{2}-\d{4})\b/,
    ),
    rules: [byId('@creditcard'), byId('@usssn')],
  },
  { scan: byId('@iban').find, rules: [byId('@iban')] },
  {
    // Literal starts: PEM keys, passwords in URLs, bearer tokens (any letter case).
    scan: regexScan(
      /-----BEGIN[A-Z ]{0,40}PRIVATE KEY-----|:\/\/[^:/?#@\s]{0,200}:[^@/?#\s]{1,200}@|[Bb][Ee][Aa][Rr][Ee][Rr]\s/,
    ),
    rules: [byId('@pemkey'), byId('@urlauth'), byId('@bearer')],
  },
  { scan: keyBeforeSeparator, rules: [byId('@password')] },
  { scan: byId('@apitoken').find, rules: [byId('@apitoken')] },
]

/** The text that replaces an e-mail address in a log message (Relay's `@email:replace`). */
export const EMAIL_MASK = '[email]'

/**
 * E-mail addresses, for the log message's text only (see `scrub.ts` `emailsInMessage`). The
 * domain must end in a letters-only top-level label, so a package version (`@sentry/node@8.0.0`)
 * or `git@host` is not taken for one; Relay's own pattern takes both. Linear: the local part can
 * start only where a run of its characters starts (the lookbehind), and every part is bounded.
 */
export const EMAIL =
  /(?<![\w.!#$%&'*+/=?^`{|}~-])[\w.!#$%&'*+/=?^`{|}~-]{1,64}@[a-zA-Z0-9-]{1,63}(?:\.[a-zA-Z0-9-]{1,63}){0,8}\.[a-zA-Z]{2,24}(?![\w-])/g

/** IPv4 and IPv6 candidates, each confirmed with `net.isIP` (`std::io` is not an address). */
export const IP_RULE: ValueRule = rule({
  id: '@ip',
  order: 8,
  re: /(?<![\w.:])(?:(?:\d{1,3}\.){3}\d{1,3}|(?=[0-9a-f:]*[0-9a-f])(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}(?:(?<=:)(?:\d{1,3}\.){3}\d{1,3})?)(?![\w.:])/gi,
  replace: (m) => (isIP(m) !== 0 ? IP_MASK : undefined),
})

/** The IP rule's detector (a project that stores no IP addresses). */
export const IP_DETECTOR: Detector = { scan: IP_RULE.find, rules: [IP_RULE] }
