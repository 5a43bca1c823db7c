import { inflateRawSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { BundleError } from './bundle-reader.ts'
import { readReleaseFile } from './release-file-reader.ts'

const ID = '0f2c3a9e-7d41-4c63-9b1e-2a4d5e6f7a8b'
const MAP = `{"version":3,"sources":["a.js"],"names":[],"mappings":"AAAA","debugId":"${ID}"}`

describe('readReleaseFile', () => {
  it('takes a parsing source map as a map, with its own debug ID, the bytes deflated', () => {
    const f = readReleaseFile('~/static/app.js.map', Buffer.from(MAP), {})
    expect(f).toMatchObject({ fileType: 'source_map', url: '~/static/app.js.map', debugId: ID })
    expect(f.mapUrl).toBeNull()
    expect(f.size).toBe(MAP.length)
    expect(inflateRawSync(f.data).toString('utf8')).toBe(MAP)
  })

  it('refuses a JSON file shaped as a map that does not parse, naming it', () => {
    const bad = Buffer.from('{"version":3,"sources":[],"mappings":5}')
    expect(() => readReleaseFile('~/bad.js.map', bad, {})).toThrow(BundleError)
    expect(() => readReleaseFile('~/bad.js.map', bad, {})).toThrow(/~\/bad\.js\.map/)
  })

  it('points a minified file at its map: the header first, else its own comment, resolved against its name', () => {
    const js = Buffer.from('var a=1;\n//# sourceMappingURL=app.js.map\n')
    expect(readReleaseFile('~/static/app.js', js, {})).toMatchObject({
      fileType: 'minified_source',
      mapUrl: '~/static/app.js.map',
    })
    expect(readReleaseFile('~/static/app.js', js, { sourcemap: '../maps/app.js.map' }).mapUrl).toBe(
      '~/maps/app.js.map',
    )
    expect(readReleaseFile('~/static/app.js', js, { 'X-SourceMap': '/m.map' }).mapUrl).toBe(
      '~/m.map',
    )
  })

  it('keeps any other file as a minified file without a map (its frames stay as sent)', () => {
    for (const data of ['var a=1;', '{"not":"a map"}', '<html></html>']) {
      const f = readReleaseFile('~/x', Buffer.from(data), {})
      expect(f).toMatchObject({ fileType: 'minified_source', mapUrl: null, debugId: null })
    }
    // An embedded map is not split out of a single file.
    const inline = Buffer.from('var a;\n//# sourceMappingURL=data:application/json;base64,e30=\n')
    expect(readReleaseFile('~/i.js', inline, {}).mapUrl).toBeNull()
  })

  it('takes a debug-id header over the map’s own', () => {
    const other = '11111111-2222-4333-8444-555555555555'
    expect(readReleaseFile('~/a.map', Buffer.from(MAP), { 'Debug-Id': other }).debugId).toBe(other)
  })
})
