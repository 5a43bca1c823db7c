import { describe, expect, it } from 'vitest'
import { dataUrlMap, sourceMappingUrlOf } from './embedded-map.ts'
import { ARTIFACT_LIMITS } from './limits.ts'

const MAP = '{"version":3,"sources":["a.js"],"names":[],"mappings":"AAAA"}'

describe('sourceMappingUrlOf', () => {
  it('reads the last reference of a minified file, before sentry-cli’s debugId comment', () => {
    const file = Buffer.from(
      `var a=1;\n//# sourceMappingURL=old.map\nvar b=2;\n//# sourceMappingURL=data:application/json;base64,e30=\n//# debugId=0f2c3a9e-7d41-4c63-9b1e-2a4d5e6f7a8b\n`,
    )
    expect(sourceMappingUrlOf(file)).toBe('data:application/json;base64,e30=')
    expect(sourceMappingUrlOf(Buffer.from('//@ sourceMappingURL=app.js.map'))).toBe('app.js.map')
  })

  it('ignores a marker inside code or followed by code, and a file without one', () => {
    expect(sourceMappingUrlOf(Buffer.from('x("//# sourceMappingURL=a.map")'))).toBeUndefined()
    expect(sourceMappingUrlOf(Buffer.from('//# sourceMappingURL=a.map\nrun()'))).toBeUndefined()
    expect(sourceMappingUrlOf(Buffer.from('var a=1'))).toBeUndefined()
  })
})

describe('dataUrlMap', () => {
  const b64 = Buffer.from(MAP).toString('base64')
  it.each([
    `data:application/json;base64,${b64}`,
    `data:application/json;charset=utf-8;base64,${b64}`,
    `data:application/json;charset=utf-8,${encodeURIComponent(MAP)}`,
    `data:,${encodeURIComponent(MAP)}`,
  ])('decodes %s', (ref) => {
    expect(dataUrlMap(ref)?.toString('utf8')).toBe(MAP)
  })

  it('refuses other media types, bad escapes, no data URL, and more than a map may hold', () => {
    expect(dataUrlMap(`data:text/javascript;base64,${b64}`)).toBeUndefined()
    expect(dataUrlMap('data:application/json,%E0%A4%A')).toBeUndefined()
    expect(dataUrlMap('app.js.map')).toBeUndefined()
    expect(dataUrlMap('data:application/json;base64,')).toBeUndefined()
    const big = 'A'.repeat((ARTIFACT_LIMITS.maxFileBytes / 3) * 4 + 8)
    expect(dataUrlMap(`data:application/json;base64,${big}`)).toBeUndefined()
  })
})
