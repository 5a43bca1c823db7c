/**
 * Rewrites the bare `NaN`, `Infinity` and `-Infinity` tokens that Python's `json` module writes
 * by default (`allow_nan=True`, used by raven-python and old sentry-python) to `null`, outside
 * strings only. Relay runs the same repair on Python clients' `/store/` bodies
 * (relay-server `endpoints/store.rs`, "Python clients are well known to send crappy JSON");
 * here it is tried on any event payload `JSON.parse` refused, so valid JSON never pays for it.
 * Returns undefined when there was nothing to rewrite (the payload is broken in another way).
 */
export function repairNonFiniteJson(text: string): string | undefined {
  let out = ''
  let from = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c)
        i++ // backslash: skip the escaped character
      else if (c === 0x22) inString = false
      continue
    }
    if (c === 0x22) {
      inString = true
      continue
    }
    const token = nonFiniteAt(text, i)
    if (token === 0) continue
    out += `${text.slice(from, i)}null`
    i += token - 1
    from = i + 1
  }
  return from === 0 ? undefined : out + text.slice(from)
}

/** Length of a non-finite number token starting at `i` (0: none). */
function nonFiniteAt(text: string, i: number): number {
  for (const token of ['NaN', 'Infinity', '-Infinity']) {
    if (text.startsWith(token, i) && !isWordChar(text.charCodeAt(i + token.length)))
      return isWordChar(text.charCodeAt(i - 1)) ? 0 : token.length
  }
  return 0
}

/** A character that would make the token part of a longer word (NaNa, xInfinity). */
function isWordChar(c: number): boolean {
  return (
    (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f
  )
}
