import { describe, expect, it } from 'vitest'
import { parseQuery, QuerySyntaxError, type SearchTerm, valueMatches } from './query.ts'

const NOW = Date.UTC(2026, 0, 31, 12)
const H = 3_600_000

describe('parseQuery', () => {
  const cases: [string, SearchTerm[]][] = [
    ['', []],
    ['   ', []],
    ['is:unresolved', [{ kind: 'status', status: 'unresolved', negated: false, at: 0 }]],
    ['!is:for_review', [{ kind: 'status', status: 'for_review', negated: true, at: 1 }]],
    ['IS:Resolved', [{ kind: 'status', status: 'resolved', negated: false, at: 0 }]],
    [
      'browser.name:Firefox',
      [{ kind: 'tag', key: 'browser.name', values: ['Firefox'], negated: false }],
    ],
    ['!url:*checkout*', [{ kind: 'tag', key: 'url', values: ['*checkout*'], negated: true }]],
    [
      'release:shop@2.1.*',
      [{ kind: 'tag', key: 'release', values: ['shop@2.1.*'], negated: false }],
    ],
    [
      'user.email:"bob smith@example.com"',
      [{ kind: 'tag', key: 'user.email', values: ['bob smith@example.com'], negated: false }],
    ],
    ['k:"a \\"q\\" \\\\ b"', [{ kind: 'tag', key: 'k', values: ['a "q" \\ b'], negated: false }]],
    ['k:""', [{ kind: 'tag', key: 'k', values: [''], negated: false }]],
    [
      'browser:[Chrome, "Mobile Safari" ,Firefox]',
      [
        {
          kind: 'tag',
          key: 'browser',
          values: ['Chrome', 'Mobile Safari', 'Firefox'],
          negated: false,
        },
      ],
    ],
    ['url:http://x/a:b', [{ kind: 'tag', key: 'url', values: ['http://x/a:b'], negated: false }]],
    ['has:user', [{ kind: 'has', key: 'user', negated: false }]],
    ['!has:release', [{ kind: 'has', key: 'release', negated: true }]],
    ['firstSeen:-24h', [{ kind: 'time', field: 'first_seen', op: '>=', at: NOW - 24 * H }]],
    ['lastSeen:+7d', [{ kind: 'time', field: 'last_seen', op: '<=', at: NOW - 7 * 24 * H }]],
    ['age:-30m', [{ kind: 'time', field: 'first_seen', op: '>=', at: NOW - 30 * 60_000 }]],
    [
      'lastSeen:>2026-01-02',
      [{ kind: 'time', field: 'last_seen', op: '>', at: Date.UTC(2026, 0, 2) }],
    ],
    [
      'firstSeen:<=2026-01-02T10:00:00Z',
      [{ kind: 'time', field: 'first_seen', op: '<=', at: Date.UTC(2026, 0, 2, 10) }],
    ],
    ['times_seen:>100', [{ kind: 'count', field: 'times_seen', op: '>', n: 100, at: 0 }]],
    ['users:3', [{ kind: 'count', field: 'users', op: '=', n: 3, at: 0 }]],
    ['TypeError', [{ kind: 'text', text: 'TypeError' }]],
    ['"Cannot read: x"', [{ kind: 'text', text: 'Cannot read: x' }]],
    ['!important', [{ kind: 'text', text: '!important' }]],
    [
      'is:unresolved  checkout   environment:production firstSeen:-1h',
      [
        { kind: 'status', status: 'unresolved', negated: false, at: 0 },
        { kind: 'text', text: 'checkout' },
        { kind: 'tag', key: 'environment', values: ['production'], negated: false },
        { kind: 'time', field: 'first_seen', op: '>=', at: NOW - H },
      ],
    ],
  ]
  it.each(cases)('parses %j', (input, terms) => {
    expect(parseQuery(input, NOW).terms).toEqual(terms)
  })

  const errors: [string, number, string, string][] = [
    ['times_seen:>abc', 11, '>abc', 'expected a number'],
    ['is:open', 3, 'open', 'unknown state'],
    ['a b:"unterminated', 4, '"unterminated', 'unterminated quoted value'],
    ['k: v', 0, 'k:', "expected a value after 'k:'"],
    ['firstSeen:yesterday', 10, 'yesterday', 'expected a time'],
    ['k:[a, b', 2, '[a,', 'unterminated list'],
    ['k:[a b]', 5, 'b]', "expected ',' or ']'"],
    ['k:[a,,b]', 5, ',b]', 'expected a value in the list'],
    ['k:[a]x', 5, 'x', 'expected a space after the list'],
    ['k:"a"b', 5, 'b', 'expected a space after the quoted value'],
    ['"a"b', 3, 'b', 'expected a space after the quoted text'],
    ['!firstSeen:-1h', 0, '!firstSeen:-1h', "'!' does not apply"],
    ['has:"a b"', 4, '"a', 'expected a tag key'],
    ['is:[a]', 3, '[a]', 'takes one value'],
    [':x', 0, ':x', 'expected key:value'],
    [`${'k'.repeat(33)}:v`, 0, `${'k'.repeat(33)}:v`, 'tag key longer than 32'],
    [`k:${'v'.repeat(201)}`, 2, 'v'.repeat(40), 'value longer than 200'],
    [Array.from({ length: 21 }, (_, i) => `w${i}`).join(' '), 70, 'w20', 'more than 20'],
  ]
  it.each(errors)('refuses %j at %i (%j)', (input, position, token, message) => {
    let caught: unknown
    try {
      parseQuery(input, NOW)
    } catch (e) {
      caught = e
    }
    expect(caught).toBeInstanceOf(QuerySyntaxError)
    const e = caught as QuerySyntaxError
    expect([e.position, e.token]).toEqual([position, token])
    expect(e.message).toContain(message)
    expect(e.message).toContain(`at position ${position}`)
  })

  it("reads Sentry's text fields as free text, one value, not negated", () => {
    expect(parseQuery('message:"failed to sync" error.type:KeyError', NOW).terms).toEqual([
      { kind: 'text', text: 'failed to sync' },
      { kind: 'text', text: 'KeyError' },
    ])
    expect(parseQuery('title:*timeout*', NOW).terms).toEqual([{ kind: 'text', text: 'timeout' }])
    expect(() => parseQuery('!message:x', NOW)).toThrow(QuerySyntaxError)
    expect(() => parseQuery('error.value:[a,b]', NOW)).toThrow(QuerySyntaxError)
  })

  it("reads Sentry's unhandled terms as the handled tag", () => {
    const no = { kind: 'tag', key: 'handled', values: ['no'], negated: false }
    expect(parseQuery('is:unhandled', NOW).terms).toEqual([no])
    expect(parseQuery('error.unhandled:true', NOW).terms).toEqual([no])
    expect(parseQuery('error.handled:0', NOW).terms).toEqual([no])
    expect(parseQuery('!is:unhandled error.unhandled:false', NOW).terms).toEqual([
      { ...no, negated: true },
      { kind: 'tag', key: 'handled', values: ['yes'], negated: false },
    ])
    expect(() => parseQuery('error.unhandled:maybe', NOW)).toThrow(QuerySyntaxError)
  })

  it("reads Sentry's error.mechanism as the mechanism tag, lists and negation included", () => {
    const boundary = 'auto.function.react.error_boundary'
    expect(parseQuery(`error.mechanism:${boundary}`, NOW).terms).toEqual([
      { kind: 'tag', key: 'mechanism', values: [boundary], negated: false },
    ])
    expect(parseQuery('!Error.Mechanism:[onerror, "auto.http.*"]', NOW).terms).toEqual([
      { kind: 'tag', key: 'mechanism', values: ['onerror', 'auto.http.*'], negated: true },
    ])
    expect(() => parseQuery('error.mechanism:', NOW)).toThrow(QuerySyntaxError)
  })

  it('reads keys named like Object.prototype members as tags', () => {
    // They once found Object.prototype through an object literal and reached SQL as a column.
    for (const key of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(parseQuery(`${key}:-24h`, NOW).terms).toEqual([
        { kind: 'tag', key, values: ['-24h'], negated: false },
      ])
      expect(parseQuery(`${key}:[a,b]`, NOW).terms).toEqual([
        { kind: 'tag', key, values: ['a', 'b'], negated: false },
      ])
    }
  })

  it('refuses a query over the length bound without reading it', () => {
    expect(() => parseQuery('x'.repeat(1001), NOW)).toThrow(/longer than 1000/)
  })
})

describe('valueMatches', () => {
  const cases: [string, string, boolean][] = [
    ['Chrome', 'Chrome', true],
    ['Chrome', 'chrome', false],
    ['Chrome*', 'Chrome 120', true],
    ['*checkout*', 'https://shop/checkout/pay', true],
    ['*checkout*', 'https://shop/cart', false],
    ['shop@2.1.*', 'shop@2.1.7', true],
    ['shop@2.1.*', 'shop@2.10', false],
    ['a*a', 'a', false],
    ['a*a', 'aa', true],
    ['*', '', true],
    ['a*b*c', 'a-c-b-c', true],
    ['a*b*c', 'acb', false],
  ]
  it.each(cases)('%j against %j: %s', (p, v, hit) => {
    expect(valueMatches(p, v)).toBe(hit)
  })
})
