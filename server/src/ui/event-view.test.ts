import { describe, expect, it } from 'vitest'
import { eventBody, stacktrace, tagsOf } from './event-view.ts'

describe('event view', () => {
  it('shows the newest 200 frames of a deep stack, crash site first', () => {
    const frames = Array.from({ length: 1000 }, (_, i) => ({
      filename: `f${i}.js`,
      lineno: i,
      in_app: true,
    }))
    const out = stacktrace({ frames }).value
    expect(out.match(/class="frame app"/g)).toHaveLength(200)
    expect(out.indexOf('f999.js')).toBeLessThan(out.indexOf('f998.js'))
    expect(out).not.toContain('f799.js')
    expect(out).toContain('800 older frames not shown')
  })

  it('reads tags as pairs or as an object', () => {
    expect(tagsOf({ tags: [['a', '1'], ['b', 2], 'junk'] })).toEqual([
      ['a', '1'],
      ['b', '2'],
    ])
    expect(tagsOf({ tags: { a: '1', n: { x: 1 } } })).toEqual([
      ['a', '1'],
      ['n', '{"x":1}'],
    ])
    expect(tagsOf({ tags: 'nope' })).toEqual([])
  })

  it('renders any payload shape without throwing, escaping every value', () => {
    for (const payload of [null, 42, 'x', [], { exception: 'x', breadcrumbs: 3, contexts: [] }]) {
      expect(() => eventBody(payload, null)).not.toThrow()
    }
    const out = eventBody(
      { user: { '<k>': '<v>' }, contexts: { '<c>': { a: '<b>' } } },
      '<w>',
    ).value
    expect(out).not.toMatch(/<(k|v|c|b|w)>/)
    expect(out).toContain('&lt;v&gt;')
  })
})
