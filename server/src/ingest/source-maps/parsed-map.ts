import { inflateRawSync } from 'node:zlib'
import { AnyMap, type TraceMap, traceSegment } from '@jridgewell/trace-mapping'
import type { StoredSourceMap } from '../../store/artifact-types.ts'
import { FunctionScopes } from './function-scopes.ts'

/** Longest context line kept, in characters around the column (minified sources are one line). */
const MAX_CONTEXT_LINE = 300
/** Lines of context above and below the frame's line, as Sentry shows. */
const CONTEXT_LINES = 5
/** Positions remembered per map: the same errors recur, so most lookups are repeats. */
const MAX_REMEMBERED = 2048

const cut = (l: string, col = 0): string => {
  if (l.length <= MAX_CONTEXT_LINE) return l
  const from = Math.max(0, col - MAX_CONTEXT_LINE / 2)
  return l.slice(from, from + MAX_CONTEXT_LINE)
}

/** Where a minified position comes from in the original source. */
export interface OriginalPosition {
  /** The source as the map names it (with `sourceRoot`). */
  source: string
  /** 1-based line and column. */
  line: number
  column: number
  /** The original identifier at the position, from the map's `names`. */
  name: string | null
  /** Context from `sourcesContent`, or undefined when the map carries no content for it. */
  context: { pre: string[]; line: string; post: string[] } | undefined
}

/**
 * A source map parsed once and kept in the cache (map-cache.ts): the trace-mapping index and,
 * split on first use, the lines of each `sourcesContent` entry.
 */
export class ParsedMap {
  readonly bundleId: number
  /** The minified file's bundle when it is not the map's (release files). */
  readonly minifiedBundleId: number | undefined
  readonly url: string
  /** Roughly what it holds in memory, for the byte-bounded cache. */
  readonly bytes: number
  readonly #map: TraceMap
  readonly #lines = new Map<number, string[]>()
  readonly #seen = new Map<number, OriginalPosition | null>()
  /** The minified file (deflated), read for its function scopes on first use. */
  readonly #minified: Buffer | undefined
  /** Its scopes: undefined until read, null when it did not parse. */
  #scopes: FunctionScopes | null | undefined

  constructor(stored: StoredSourceMap) {
    const text = inflateRawSync(stored.data).toString('utf8')
    this.bundleId = stored.bundleId
    this.minifiedBundleId = stored.minifiedBundleId
    this.url = stored.url
    this.#map = new AnyMap(text)
    this.#minified = stored.minified
    // The JSON text once more for the decoded mappings and split lines (measured: the decoded
    // segments of an esbuild map take about as much as its text), and the minified file with
    // its scope index (about four times its deflated bytes, held until the map is dropped).
    this.bytes = text.length * 2 + 1024 + (stored.minified?.length ?? 0) * 4
  }

  /**
   * The original name of the function a minified position is in (Sentry's scope names): the
   * token naming the innermost function around it in the minified file, mapped through the map
   * (its `names` entry there). A property or method key (`onClick: () =>`, which minifiers
   * keep) is its own name; a binding the map names nothing for is the identifier written where
   * the map points it (not a keyword). Undefined when the bundle has no minified file, the
   * position is in no named function, or nothing names it: the caller falls back.
   */
  scopeName(line: number, column: number): string | undefined {
    if (this.#minified === undefined) return undefined
    if (this.#scopes === undefined) {
      try {
        this.#scopes = FunctionScopes.of(inflateRawSync(this.#minified).toString('utf8')) ?? null
      } catch {
        this.#scopes = null
      }
    }
    const token = this.#scopes?.at(line, column)
    if (token === undefined) return undefined
    const seg = traceSegment(this.#map, token.line - 1, token.column - 1)
    if (seg !== null && seg.length === 5) {
      const name = this.#map.names[seg[4]]
      if (name !== undefined && name !== '') return name
    }
    if (!token.binding) return token.name
    if (token.anonymous || seg === null || seg.length === 1) return undefined
    const original = this.#sourceLines(seg[1])?.[seg[2]]
    if (original === undefined) return undefined
    // A map that maps the binding itself but names nothing (Turbopack's, with `names: []`) maps
    // it to where the original name is written: `d` of `async function d(` to `ServerErrorPage`.
    if (seg[0] === token.column - 1) return originalIdentifier(original, seg[3])
    return original.startsWith(token.name, seg[3]) ? token.name : undefined
  }

  #sourceLines(sourceIndex: number): string[] | undefined {
    let lines = this.#lines.get(sourceIndex)
    if (lines === undefined) {
      const content = this.#map.sourcesContent?.[sourceIndex]
      if (typeof content !== 'string') return undefined
      lines = content.split(/\r?\n/)
      this.#lines.set(sourceIndex, lines)
    }
    return lines
  }

  /**
   * The original position of a 1-based line and column (greatest lower bound), if mapped. The
   * result is shared between events asking for the same position: callers never mutate it.
   */
  lookup(line: number, column: number): OriginalPosition | undefined {
    if (line < 1 || column < 1 || line > 0x1fffff || column > 0x7fffffff) return undefined
    const key = line * 0x80000000 + column
    const seen = this.#seen.get(key)
    if (seen !== undefined) return seen ?? undefined
    const found = this.#lookup(line, column)
    if (this.#seen.size >= MAX_REMEMBERED) this.#seen.clear()
    this.#seen.set(key, found ?? null)
    return found
  }

  #lookup(line: number, column: number): OriginalPosition | undefined {
    const seg = traceSegment(this.#map, line - 1, column - 1)
    if (seg === null || seg.length === 1) return undefined
    const sourceIndex = seg[1]
    const source = this.#map.sources[sourceIndex] ?? this.#map.resolvedSources[sourceIndex]
    if (source === undefined || source === null) return undefined
    const name = seg.length === 5 ? (this.#map.names[seg[4]] ?? null) : null
    return {
      source,
      line: seg[2] + 1,
      column: seg[3] + 1,
      name,
      context: this.#context(sourceIndex, seg[2], seg[3]),
    }
  }

  #context(sourceIndex: number, line0: number, col0: number): OriginalPosition['context'] {
    const lines = this.#sourceLines(sourceIndex)
    if (lines === undefined) return undefined
    const at = lines[line0]
    if (at === undefined) return undefined
    return {
      pre: lines.slice(Math.max(0, line0 - CONTEXT_LINES), line0).map((l) => cut(l)),
      line: cut(at, col0),
      post: lines.slice(line0 + 1, line0 + 1 + CONTEXT_LINES).map((l) => cut(l)),
    }
  }
}

/** Words a mapping may point at that name no function (the keyword before the name). */
const NOT_A_NAME = new Set([
  'async',
  'await',
  'class',
  'const',
  'default',
  'export',
  'function',
  'get',
  'let',
  'new',
  'return',
  'set',
  'static',
  'var',
])

/** The identifier written at a 0-based column of an original line, unless it is a keyword. */
function originalIdentifier(line: string, column: number): string | undefined {
  const id = /^[A-Za-z_$][\w$]{0,199}/.exec(line.slice(column, column + 200))?.[0]
  return id === undefined || NOT_A_NAME.has(id) ? undefined : id
}
