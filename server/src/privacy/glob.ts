/**
 * The glob patterns of the message and release filters, as Relay reads them
 * (relay-filter `error_messages.rs`, `releases.rs`): `*` any run of characters, `?` one
 * character, `{a,b}` one of the alternatives, `\` escapes the next character; everything else
 * is literal and the match is case-insensitive over the whole text.
 *
 * Matched without backtracking: a pattern is cut at its `*` into pieces, and each piece is
 * looked for once, leftmost, after the one before (a leftmost match never hurts the pieces
 * after it). A text is read about once per piece, so a client's message costs time in
 * proportion to its length whatever the pattern: as a regular expression, `*failed*to*fetch*`
 * against 8 KB of `failed to ` took half a second (Relay's regex engine does not backtrack
 * either).
 */

/** A compiled pattern (or several): whether a text matches. */
export interface Glob {
  test(text: string): boolean
}

/** Alternatives a pattern's braces may expand to, at most (`{a,b}{c,d}` is four). */
const MAX_ALTERNATIVES = 64

/** Why a pattern does not parse, or undefined when it does. */
export function globError(pattern: string): string | undefined {
  if (pattern === '') return 'an empty pattern'
  try {
    expand(pattern)
    return undefined
  } catch (e) {
    return e instanceof Error ? e.message : String(e)
  }
}

/** The pattern compiled (case-insensitive, over the whole text); throws when it does not parse. */
export function compileGlob(pattern: string): Glob {
  return compileGlobs([pattern]) as Glob
}

/** Several patterns as one matcher: a text matches when one of them does. */
export function compileGlobs(patterns: readonly string[]): Glob | undefined {
  if (patterns.length === 0) return undefined
  const shapes = patterns.flatMap((p) => expand(p).map(shapeOf))
  return {
    test(text: string): boolean {
      const t = text.toLowerCase()
      return shapes.some((s) => matches(s, t))
    },
  }
}

/** A run of the pattern without `*`: its text, lowercased, and where a `?` stands. */
interface Piece {
  text: string
  /** Positions of `?` (any one character), or undefined when there are none. */
  any: readonly boolean[] | undefined
}

/** One alternative of a pattern: its pieces, and whether a `*` stands between them. */
interface Shape {
  head: Piece
  /** The pieces between `*`s, in order; empty when there is no `*`. */
  middle: readonly Piece[]
  /** The piece after the last `*`, or undefined when there is no `*`. */
  tail: Piece | undefined
}

/** One unit of a parsed alternative: a literal character, `?` or `*`. */
type Unit = { lit: string } | 'any' | 'star'

/** The pattern's alternatives (braces expanded), each as units; throws when it does not parse. */
function expand(p: string): Unit[][] {
  let out: Unit[][] = [[]]
  let group: Unit[][] | undefined
  const push = (u: Unit) => {
    if (group !== undefined) (group[group.length - 1] as Unit[]).push(u)
    else for (const alt of out) alt.push(u)
  }
  for (let i = 0; i < p.length; i++) {
    const c = p[i] as string
    if (c === '\\') {
      const next = p[i + 1]
      if (next === undefined) throw new Error('a trailing backslash')
      push({ lit: next })
      i++
    } else if (c === '*') push('star')
    else if (c === '?') push('any')
    else if (c === '{') {
      if (group !== undefined) throw new Error('nested braces')
      group = [[]]
    } else if (c === '}') {
      if (group === undefined) throw new Error("a '}' without its '{'")
      const options = group
      group = undefined
      if (out.length * options.length > MAX_ALTERNATIVES)
        throw new Error(`more than ${MAX_ALTERNATIVES} alternatives`)
      out = out.flatMap((alt) => options.map((o) => [...alt, ...o]))
    } else if (c === ',' && group !== undefined) group.push([])
    else push({ lit: c })
  }
  if (group !== undefined) throw new Error("a '{' without its '}'")
  return out
}

function shapeOf(units: readonly Unit[]): Shape {
  const pieces: Piece[] = []
  let text = ''
  let any: boolean[] | undefined
  const close = () => {
    pieces.push({ text, any })
    text = ''
    any = undefined
  }
  for (const u of units) {
    if (u === 'star') close()
    else if (u === 'any') {
      any ??= new Array<boolean>(text.length).fill(false)
      any.push(true)
      // Any character stands in the text for the `?`; `any` says it matches anything.
      text += '?'
    } else {
      const lower = u.lit.toLowerCase()
      for (let k = 0; k < lower.length; k++) any?.push(false)
      text += lower
    }
  }
  close()
  const head = pieces[0] as Piece
  if (pieces.length === 1) return { head, middle: [], tail: undefined }
  return {
    head,
    middle: pieces.slice(1, -1).filter((m) => m.text !== ''),
    tail: pieces[pieces.length - 1] as Piece,
  }
}

/** Whether `piece` stands in `t` at `at`. */
function at(piece: Piece, t: string, pos: number): boolean {
  const { text, any } = piece
  if (any === undefined) return t.startsWith(text, pos)
  if (pos + text.length > t.length) return false
  for (let k = 0; k < text.length; k++)
    if (any[k] !== true && t.charCodeAt(pos + k) !== text.charCodeAt(k)) return false
  return true
}

/** Where `piece` first stands in `t` from `from`, ending by `end`; -1 when nowhere. */
function find(piece: Piece, t: string, from: number, end: number): number {
  const last = end - piece.text.length
  if (piece.any === undefined) {
    const i = t.indexOf(piece.text, from)
    return i >= 0 && i <= last ? i : -1
  }
  for (let i = from; i <= last; i++) if (at(piece, t, i)) return i
  return -1
}

/** Whether the lowercased text `t` matches `s` as a whole. */
function matches(s: Shape, t: string): boolean {
  const { head, middle, tail } = s
  if (tail === undefined) return t.length === head.text.length && at(head, t, 0)
  const end = t.length - tail.text.length
  if (end < head.text.length || !at(head, t, 0) || !at(tail, t, end)) return false
  let pos = head.text.length
  for (const m of middle) {
    const i = find(m, t, pos, end)
    if (i < 0) return false
    pos = i + m.text.length
  }
  return true
}
