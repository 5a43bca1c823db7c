import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

// The layers of server/src, bottom to top: a unit (a folder, or a file at the root) may import
// its own layer or one below, never one above, and no two units may import each other through
// any path. Type-only imports count: they tie the folders together just the same.
const LAYERS: readonly (readonly string[])[] = [
  // Event normalisation and grouping, the privacy and search rules over events, and what
  // everything shares.
  [
    'event',
    'grouping',
    'privacy',
    'search',
    'errors',
    'config',
    'length-prefixed',
    'spawn-worker',
    'backoff',
  ],
  // Cron arithmetic, derived ids, the failure event of a run.
  ['schedule'],
  ['store'],
  // What sits on the store: the live bus and feeds, mail, HTTP plumbing and route declarations.
  ['live', 'mail', 'http'],
  // Ingest (and the digest seam it hands the store), crons, OTLP.
  ['ingest', 'crons', 'otlp'],
  // The HTTP toolkit features build their routes with; the metrics over ingest and crons.
  ['http-kit', 'metrics'],
  // The composition's shared type.
  ['services'],
  // Features, the first-start bootstrap and the command-line tools.
  [
    'accounts',
    'audit',
    'alerts',
    'triage',
    'components',
    'artifact-bundles',
    'api',
    'bootstrap',
    'cli',
  ],
  ['ui'],
  ['app', 'route-table', 'main'],
]

const SRC = import.meta.dirname

/** The unit a path under server/src belongs to: its first folder, or the root file's name. */
function unitOf(path: string): string {
  const [first, ...rest] = path.split(sep)
  return rest.length > 0 ? (first ?? '') : (first ?? '').replace(/\.ts$/, '')
}

/** Every import between units of server/src (non-test sources), with the files that make it. */
function unitImports(): Map<string, Map<string, string[]>> {
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter(
    (f) => f.endsWith('.ts') && !f.endsWith('.test.ts'),
  )
  const edges = new Map<string, Map<string, string[]>>()
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(join(SRC, file), 'utf8'), true, true)
    for (const { fileName } of info.importedFiles) {
      if (!fileName.startsWith('.')) continue
      const target = relative(SRC, resolve(dirname(join(SRC, file)), fileName))
      if (target.startsWith('..')) continue
      const from = unitOf(file)
      const to = unitOf(target)
      if (from === to) continue
      const out = edges.get(from) ?? new Map<string, string[]>()
      edges.set(from, out)
      out.set(to, [...(out.get(to) ?? []), `${file} → ${target}`])
    }
  }
  return edges
}

/** The strongly connected components with more than one unit (Tarjan). */
function cycles(edges: Map<string, Map<string, string[]>>, units: Iterable<string>): string[][] {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (v: string): void => {
    index.set(v, next)
    low.set(v, next++)
    stack.push(v)
    onStack.add(v)
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0))
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0))
      }
    }
    if (low.get(v) !== index.get(v)) return
    const component: string[] = []
    let w: string | undefined
    do {
      w = stack.pop()
      if (w === undefined) break
      onStack.delete(w)
      component.push(w)
    } while (w !== v)
    if (component.length > 1) found.push(component.sort())
  }
  for (const u of units) if (!index.has(u)) visit(u)
  return found
}

const edges = unitImports()
const units = new Set([...edges.keys(), ...[...edges.values()].flatMap((m) => [...m.keys()])])
const rank = new Map(LAYERS.flatMap((layer, i) => layer.map((u) => [u, i] as const)))

describe('the layers of server/src', () => {
  it('reads the imports it checks (a guard against an empty graph)', () => {
    expect(edges.get('app')?.has('store')).toBe(true)
    // A type-only import is seen too.
    expect(edges.get('store')?.get('schedule')).toContain(
      `store${sep}monitor-types.ts → schedule${sep}schedule.ts`,
    )
  })

  it('places every folder and root file in a layer', () => {
    expect([...units].filter((u) => !rank.has(u)).sort()).toEqual([])
  })

  it('has no folder cycle', () => {
    expect(cycles(edges, units)).toEqual([])
  })

  it('never imports a layer above (the store imports nothing but schedule and the base)', () => {
    const upward: string[] = []
    for (const [from, out] of edges) {
      for (const [to, why] of out) {
        if ((rank.get(to) ?? 0) > (rank.get(from) ?? 0)) upward.push(...why)
      }
    }
    expect(upward).toEqual([])
    const storeRank = rank.get('store') ?? 0
    const storeUp = [...(edges.get('store')?.keys() ?? [])].filter(
      (u) => (rank.get(u) ?? storeRank) >= storeRank,
    )
    expect(storeUp).toEqual([])
    expect(edges.get('store')?.has('schedule')).toBe(true)
  })
})
