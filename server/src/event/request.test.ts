import { describe, expect, it } from 'vitest'
import { normalizeRequest } from './request.ts'

// Relay's normalize/request.rs, case by case.
describe('normalizeRequest', () => {
  it('upper-cases the method and drops one that is no method', () => {
    expect(normalizeRequest({ method: 'post' })['method']).toBe('POST')
    expect(normalizeRequest({ method: '!!!!' })).not.toHaveProperty('method')
  })

  it("moves the URL's query and fragment into their fields, those sent winning", () => {
    expect(normalizeRequest({ url: 'https://shop.example/cart?id=7&api_key=k#top' })).toEqual({
      url: 'https://shop.example/cart',
      query_string: [
        ['id', '7'],
        ['api_key', 'k'],
      ],
      fragment: 'top',
    })
    expect(
      normalizeRequest({ url: 'http://x.example/p?a=1#f', query_string: 'b=2', fragment: 'g' }),
    ).toEqual({ url: 'http://x.example/p', query_string: [['b', '2']], fragment: 'g' })
    // A relative URL (Rails, some Go routers) is split by its first # and then its first ?.
    expect(normalizeRequest({ url: '/orders/7?page=2+x&q=%41' })).toEqual({
      url: '/orders/7',
      query_string: [
        ['page', '2 x'],
        ['q', 'A'],
      ],
    })
    // The JavaScript SDK's old ellipsis after a cut URL.
    expect(normalizeRequest({ url: 'http://example.com/path\u2026' })['url']).toBe(
      'http://example.com/path...',
    )
    expect(normalizeRequest({ query_string: '?a=1&b' })['query_string']).toEqual([
      ['a', '1'],
      ['b', ''],
    ])
  })

  it('parses a JSON or form body and says which; keeps text, typed by its header', () => {
    expect(normalizeRequest({ data: '{"user":"bob","n":[1]}' })).toEqual({
      data: { user: 'bob', n: [1] },
      inferred_content_type: 'application/json',
    })
    expect(normalizeRequest({ data: 'user=bob&password=x' })).toEqual({
      data: { user: 'bob', password: 'x' },
      inferred_content_type: 'application/x-www-form-urlencoded',
    })
    // A word or a base64 string reads as a form of one empty field: text.
    // And text with a blank in it, which no form encoder writes (its sentence would be a name).
    for (const text of [
      'hello',
      'dGU=',
      'dA==',
      '{"broken":',
      '<?xml a=1?>',
      'naïve=1',
      'Customer called: card 4111 1111 1111 1111; priority=high',
      'a=1\nb=2',
    ]) {
      expect(normalizeRequest({ data: text })).toEqual({ data: text })
    }
    expect(
      normalizeRequest({
        data: '{"foo":"b',
        headers: [['content-type', 'text/plain; charset=utf-8']],
      })['inferred_content_type'],
    ).toBe('text/plain')
    // A field named __proto__ is a field, not a prototype.
    const proto = normalizeRequest({ data: '__proto__=x&a=1' })['data'] as Record<string, unknown>
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype)
    expect(Object.keys(proto)).toEqual(['__proto__', 'a'])
  })

  it('reads cookies sent only as a header, and drops the header once cookies are there', () => {
    expect(normalizeRequest({ headers: { Cookie: 'a=b; c=d', Host: 'x' } })).toEqual({
      headers: { Host: 'x' },
      cookies: [
        ['a', 'b'],
        ['c', 'd'],
      ],
    })
    expect(normalizeRequest({ headers: [['Cookie', 'a=b']], cookies: { s: '1' } })).toEqual({
      headers: [],
      cookies: { s: '1' },
    })
    // sentry-java and sentry-go send cookies as a string.
    expect(normalizeRequest({ cookies: 'session=s1; theme=dark' })['cookies']).toEqual([
      ['session', 's1'],
      ['theme', 'dark'],
    ])
    // A part that is no pair: Relay leaves the header as it is.
    expect(normalizeRequest({ headers: { Cookie: 'a=b; junk' } })).toEqual({
      headers: { Cookie: 'a=b; junk' },
    })
  })

  it("writes header names as Relay's HeaderName, in a map or in pairs", () => {
    expect(
      normalizeRequest({
        headers: { 'x-api-key': 'k', 'user-agent': 'u', 'WWW-Authenticate': 'w' },
      }),
    ).toEqual({ headers: { 'X-Api-Key': 'k', 'User-Agent': 'u', 'WWW-Authenticate': 'w' } })
    expect(normalizeRequest({ headers: [['content-type', 'text/html']] })).toEqual({
      headers: [['Content-Type', 'text/html']],
      inferred_content_type: 'text/html',
    })
  })

  it('leaves the client object as it was', () => {
    const raw = { url: 'https://x.example/?a=1', data: 'a=1' }
    normalizeRequest(raw)
    expect(raw).toEqual({ url: 'https://x.example/?a=1', data: 'a=1' })
  })
})
