import { deflateRawSync } from 'node:zlib'
import { transform } from 'esbuild'
import { describe, expect, it } from 'vitest'
import { FunctionScopes } from './function-scopes.ts'
import { ParsedMap } from './parsed-map.ts'

/** A handler called through a variable: the caller's token names it `handler`, not `onClick`. */
const SOURCE = `const handlers = {
  onClick: () => {
    throw new Error('clicked')
  },
}
export function loadInvoice(id) {
  if (id > 0) throw new Error('no invoice ' + id)
  return id
}
export function dispatch(name) {
  const handler = handlers[name]
  return handler() + loadInvoice(1)
}
`

/** 1-based line and column of the `n`th `throw` in `code`. */
function throwAt(code: string, n: number): [number, number] {
  let at = -1
  for (let i = 0; i < n; i++) at = code.indexOf('throw', at + 1)
  const before = code.slice(0, at)
  const line = before.split('\n').length
  return [line, at - before.lastIndexOf('\n')]
}

async function minified() {
  const out = await transform(SOURCE, {
    minify: true,
    sourcemap: 'external',
    sourcesContent: true,
    sourcefile: 'handlers.js',
    format: 'esm',
  })
  return { code: out.code, map: out.map }
}

describe('scope names of minified frames', () => {
  it('names a frame by the function it is in, mapped to the original name', async () => {
    const { code, map } = await minified()
    // The minifier renamed the bindings.
    expect(code).not.toContain('function loadInvoice')
    const parsed = new ParsedMap({
      bundleId: 1,
      url: '~/handlers.js.map',
      data: deflateRawSync(map),
      minified: deflateRawSync(code),
    })
    expect(parsed.scopeName(...throwAt(code, 1))).toBe('onClick')
    expect(parsed.scopeName(...throwAt(code, 2))).toBe('loadInvoice')
    // Outside any function: nothing, the caller falls back.
    expect(parsed.scopeName(1, 1)).toBeUndefined()
  })

  it("names a function inlined as an unnamed expression by the map's name at its keyword", () => {
    // Turbopack: `async function fetchDashboard() {…}` called in place as `function(){…}()`,
    // the map naming the `function` keyword (column 7) `fetchDashboard`.
    const code = 'let a=function(){throw Error("x")}(),b=[1].map(e=>{throw 1});'
    const parsed = new ParsedMap({
      bundleId: 1,
      url: '~/page.js.map',
      data: deflateRawSync(
        JSON.stringify({
          version: 3,
          sources: ['page.tsx'],
          names: ['fetchDashboard'],
          mappings: 'MAASA',
          sourcesContent: ['async function fetchDashboard() {}'],
        }),
      ),
      minified: deflateRawSync(code),
    })
    expect(parsed.scopeName(1, code.indexOf('throw') + 1)).toBe('fetchDashboard')
    // An unnamed arrow function is not named from the map (its first token is a parameter).
    expect(parsed.scopeName(1, code.lastIndexOf('throw') + 1)).toBeUndefined()
  })

  it('names a renamed binding by the identifier its mapping points at when the map has no names', () => {
    // Turbopack (Next.js 15): `async function d(` mapped to `ServerErrorPage` of the original
    // (line 1, column 30), with `names: []`; a second file's binding maps to the keyword before
    // its name, which names nothing.
    const code = 'async function d(){throw Error("x")}'
    const map = (mappings: string) =>
      new ParsedMap({
        bundleId: 1,
        url: '~/page.js.map',
        data: deflateRawSync(
          JSON.stringify({
            version: 3,
            sources: ['page.tsx'],
            names: [],
            mappings,
            sourcesContent: [
              "export default async function ServerErrorPage() {\n  throw new Error('x')\n}",
            ],
          }),
        ),
        minified: deflateRawSync(code),
      })
    const at = code.indexOf('throw') + 1
    expect(map('eAA8B,IAC5B').scopeName(1, at)).toBe('ServerErrorPage')
    expect(map('eAAe,IAC5B').scopeName(1, at)).toBeUndefined()
  })

  it('has no scope names without the minified file or when it does not parse', async () => {
    const { code, map } = await minified()
    const noFile = new ParsedMap({ bundleId: 1, url: 'm', data: deflateRawSync(map) })
    expect(noFile.scopeName(...throwAt(code, 1))).toBeUndefined()
    expect(FunctionScopes.of('this is { not javascript')).toBeUndefined()
  })

  it('reads names from declarations, assignments, properties and methods', () => {
    const text =
      'function a(){x}const b=()=>{x};o.c=function(){x};const d={e(){x},"f":()=>{x}};class G{h(){x}}'
    const scopes = FunctionScopes.of(text)
    const nameAt = (marker: string) => {
      const col = text.indexOf(marker) + marker.length + 1
      return scopes?.at(1, col)
    }
    expect(nameAt('function a(){')).toMatchObject({ name: 'a', binding: true })
    expect(nameAt('const b=()=>{')).toMatchObject({ name: 'b', binding: true })
    expect(nameAt('o.c=function(){')).toMatchObject({ name: 'c', binding: false })
    expect(nameAt('e(){')).toMatchObject({ name: 'e', binding: false })
    expect(nameAt('"f":()=>{')).toMatchObject({ name: 'f', binding: false })
    expect(nameAt('h(){')).toMatchObject({ name: 'h', binding: false })
  })
})
