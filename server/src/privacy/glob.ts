/**
 * The glob patterns of the message and release filters, as Relay reads them
 * (relay-filter `error_messages.rs`, `releases.rs`): `*` any run of characters, `?` one
 * character, `{a,b}` one of the alternatives, `\` escapes the next character; everything else
 * is literal and the match is case-insensitive over the whole text.
 */

/** Why a pattern does not parse, or undefined when it does. */
export function globError(pattern: string): string | undefined {
  if (pattern === '') return 'an empty pattern'
  try {
    globSource(pattern)
    return undefined
  } catch (e) {
    return e instanceof Error ? e.message : String(e)
  }
}

/** The pattern as a regular expression (anchored, case-insensitive); throws when it does not parse. */
export function compileGlob(pattern: string): RegExp {
  return new RegExp(`^${globSource(pattern)}$`, 'is')
}

/** Several patterns as one regular expression: one test per text instead of one per pattern. */
export function compileGlobs(patterns: readonly string[]): RegExp | undefined {
  if (patterns.length === 0) return undefined
  return new RegExp(patterns.map((p) => `^(?:${globSource(p)})$`).join('|'), 'is')
}

const SPECIAL = /[.*+?^${}()|[\]\\/-]/

function globSource(p: string): string {
  let out = ''
  let inBraces = false
  for (let i = 0; i < p.length; i++) {
    const c = p[i] as string
    if (c === '\\') {
      const next = p[i + 1]
      if (next === undefined) throw new Error('a trailing backslash')
      out += escapeChar(next)
      i++
    } else if (c === '*') out += '.*'
    else if (c === '?') out += '.'
    else if (c === '{') {
      if (inBraces) throw new Error('nested braces')
      inBraces = true
      out += '(?:'
    } else if (c === '}') {
      if (!inBraces) throw new Error("a '}' without its '{'")
      inBraces = false
      out += ')'
    } else if (c === ',' && inBraces) out += '|'
    else out += escapeChar(c)
  }
  if (inBraces) throw new Error("a '{' without its '}'")
  return out
}

function escapeChar(c: string): string {
  return SPECIAL.test(c) ? `\\${c}` : c
}
