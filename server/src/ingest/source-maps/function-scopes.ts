import { type Node, parse } from 'acorn'

/** One function of a minified file: its source range and the token that names it, if any. */
interface Scope {
  start: number
  end: number
  /** Offset of the naming identifier, or -1 for an anonymous function. */
  nameAt: number
  name: string
  /**
   * Whether the name is a binding (a function's or variable's name, which a minifier renames)
   * rather than a property or method key (which it keeps).
   */
  binding: boolean
  /**
   * An unnamed `function` expression (a bundler's inlined function called in place): `nameAt`
   * is its `function` keyword, which only the map's `names` entry there can name.
   */
  anonymous?: true
}

/** The token that names the function around a position, as found in the minified file. */
export interface ScopeToken {
  /** 1-based line and column of the token in the minified file. */
  line: number
  column: number
  name: string
  binding: boolean
  /** Set for an unnamed `function` expression: only the map may name it. */
  anonymous?: true
}

type AnyNode = Node & Record<string, unknown>

const isNode = (v: unknown): v is AnyNode =>
  v !== null && typeof v === 'object' && typeof (v as { type?: unknown }).type === 'string'

const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression'])

/** Most functions indexed per file (a bound on memory for hostile uploads). */
const MAX_SCOPES = 200_000

/** The identifier that names `fn` (its own id, or where it is assigned or defined), if any. */
function nameOf(fn: AnyNode, parent: AnyNode | undefined): Omit<Scope, 'start' | 'end'> {
  const id = fn['id']
  if (isNode(id) && id.type === 'Identifier')
    return { nameAt: id.start, name: String(id['name']), binding: true }
  if (parent === undefined) return { nameAt: -1, name: '', binding: false }
  const key = (k: unknown, computed: unknown, binding: boolean) => {
    if (computed === true || !isNode(k)) return undefined
    if (k.type === 'Identifier' || k.type === 'PrivateIdentifier')
      return { nameAt: k.start, name: String(k['name']), binding }
    if (k.type === 'Literal' && typeof k['value'] === 'string')
      return { nameAt: k.start + 1, name: k['value'], binding }
    return undefined
  }
  let found: Omit<Scope, 'start' | 'end'> | undefined
  switch (parent.type) {
    case 'VariableDeclarator':
      if (parent['init'] === fn) found = key(parent['id'], false, true)
      break
    case 'AssignmentExpression': {
      const left = parent['left']
      if (parent['right'] !== fn || !isNode(left)) break
      if (left.type === 'Identifier') found = key(left, false, true)
      else if (left.type === 'MemberExpression')
        found = key(left['property'], left['computed'], false)
      break
    }
    case 'Property':
    case 'MethodDefinition':
    case 'PropertyDefinition':
      if (parent['value'] === fn) found = key(parent['key'], parent['computed'], false)
      break
  }
  if (found !== undefined) return found
  // `function(){…}` with no name anywhere: its keyword, which a bundler that inlined a named
  // function maps to that function's original name.
  if (fn.type === 'FunctionExpression')
    return { nameAt: fn.start, name: '', binding: true, anonymous: true }
  return { nameAt: -1, name: '', binding: false }
}

/**
 * The functions of a minified JavaScript file, to name a frame the way Sentry's processor does
 * now: the innermost function around the frame's position, named by the token that names it
 * there (`function n(`, `const n = () =>`, `onClick: () =>`), which the source map then maps to
 * the original name. Parsed once per file (acorn); a file that does not parse has none.
 */
export class FunctionScopes {
  readonly #scopes: Scope[]
  readonly #lineStarts: number[]

  private constructor(scopes: Scope[], lineStarts: number[]) {
    this.#scopes = scopes
    this.#lineStarts = lineStarts
  }

  /** Roughly what the index holds in memory. */
  get bytes(): number {
    return this.#scopes.length * 64 + this.#lineStarts.length * 8
  }

  /** Parses `text`; undefined when it is not JavaScript acorn reads (as a module or a script). */
  static of(text: string): FunctionScopes | undefined {
    let ast: Node | undefined
    for (const sourceType of ['module', 'script'] as const) {
      try {
        ast = parse(text, {
          ecmaVersion: 'latest',
          sourceType,
          allowHashBang: true,
          allowReturnOutsideFunction: true,
          allowAwaitOutsideFunction: true,
          allowImportExportEverywhere: true,
        })
        break
      } catch {
        ast = undefined
      }
    }
    if (ast === undefined) return undefined
    const scopes: Scope[] = []
    // Iterative: minified code nests deeply.
    const stack: [AnyNode, AnyNode | undefined][] = [[ast as AnyNode, undefined]]
    while (stack.length > 0 && scopes.length < MAX_SCOPES) {
      const [node, parent] = stack.pop() as [AnyNode, AnyNode | undefined]
      if (FUNCTIONS.has(node.type))
        scopes.push({ start: node.start, end: node.end, ...nameOf(node, parent) })
      for (const k in node) {
        const v = node[k]
        if (Array.isArray(v)) {
          for (const c of v) if (isNode(c)) stack.push([c, node])
        } else if (isNode(v)) stack.push([v, node])
      }
    }
    scopes.sort((a, b) => a.start - b.start)
    const lineStarts = [0]
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1)
    return new FunctionScopes(scopes, lineStarts)
  }

  /**
   * The naming token of the innermost function around a 1-based line and column; undefined when
   * the position is in no function or in an anonymous one.
   */
  at(line: number, column: number): ScopeToken | undefined {
    const lineStart = this.#lineStarts[line - 1]
    if (lineStart === undefined) return undefined
    const offset = lineStart + column - 1
    // The last function starting at or before the offset, then outwards to one that holds it.
    let lo = 0
    let hi = this.#scopes.length - 1
    let i = -1
    while (lo <= hi) {
      const mid = (lo + hi) >> 1
      if ((this.#scopes[mid] as Scope).start <= offset) {
        i = mid
        lo = mid + 1
      } else hi = mid - 1
    }
    for (let steps = 0; i >= 0 && steps < 10_000; i--, steps++) {
      const s = this.#scopes[i] as Scope
      if (s.end <= offset) continue
      if (s.nameAt < 0) return undefined
      const token: ScopeToken = { ...this.#position(s.nameAt), name: s.name, binding: s.binding }
      if (s.anonymous) token.anonymous = true
      return token
    }
    return undefined
  }

  #position(offset: number): { line: number; column: number } {
    let lo = 0
    let hi = this.#lineStarts.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if ((this.#lineStarts[mid] as number) <= offset) lo = mid
      else hi = mid - 1
    }
    return { line: lo + 1, column: offset - (this.#lineStarts[lo] as number) + 1 }
  }
}
