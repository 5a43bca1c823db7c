import { describe, expect, it } from 'vitest'
import { integrationsSection, pairsOf, requestSection } from './event-request.ts'
import { eventBody } from './event-view.ts'

describe('request section', () => {
  it('shows method and URL, query, headers, cookies and body of what a framework sent', () => {
    const out = requestSection({
      method: 'GET',
      url: 'http://127.0.0.1:4000/orders/17',
      query_string: 'expand=items&note=a%20b',
      headers: { 'User-Agent': 'conformance/1', Accept: 'application/json' },
      cookies: 'session=abc; theme=dark',
      data: { quantity: 2 },
    }).value
    expect(out).toContain('<b>GET</b> http://127.0.0.1:4000/orders/17')
    expect(out).toContain('<th class="mono">expand</th><td class="mono">items</td>')
    expect(out).toContain('<th class="mono">note</th><td class="mono">a b</td>')
    expect(out).toContain('<th class="mono">User-Agent</th><td class="mono">conformance/1</td>')
    expect(out).toContain('<th class="mono">theme</th><td class="mono">dark</td>')
    expect(out).toContain('&quot;quantity&quot;: 2')
  })

  it('labels the body with the type it was read as, and shows that type nowhere else', () => {
    // What Starlette and Bottle send (sentry-sdk 2.75): a JSON body, and a GET whose WSGI
    // environment has `Content-Type: text/plain` but no body.
    const post = requestSection({
      method: 'POST',
      url: 'http://127.0.0.1:8000/users/17/orders',
      data: { note: 'gift wrap' },
      inferred_content_type: 'application/json',
    }).value
    expect(post).toContain('<h3>Body <span class="muted small mono">application/json</span></h3>')
    expect(post).not.toContain('<h3>Other</h3>')
    const get = requestSection({
      method: 'GET',
      url: 'http://127.0.0.1:8000/users/17',
      headers: { 'Content-Type': 'text/plain' },
      inferred_content_type: 'text/plain',
      fragment: 'top',
    }).value
    expect(get).not.toContain('inferred_content_type')
    expect(get).not.toContain('<h3>Body')
    expect(get).toContain('<h3>Other</h3>')
    expect(get).toContain('<th class="mono">fragment</th><td class="mono">top</td>')
  })

  it('reads headers as pairs and query strings as pairs or objects', () => {
    expect(pairsOf([['Host', 'x'], ['bad'], 'junk'], '&')).toEqual([['Host', 'x']])
    expect(pairsOf({ a: 1, b: ['x'] }, '&')).toEqual([
      ['a', '1'],
      ['b', '[\n  "x"\n]'],
    ])
    expect(pairsOf('?a=%zz&b', '&')).toEqual([
      ['a', '%zz'],
      ['b', ''],
    ])
    expect(pairsOf(42, '&')).toEqual([])
  })

  it('escapes every value and renders nothing without a request', () => {
    expect(requestSection(undefined).value).toBe('')
    expect(requestSection('GET /').value).toBe('')
    const out = requestSection({
      method: '<zm>',
      url: '<zu>',
      headers: { '<zh>': '<v>' },
      data: '<zb>',
      '<zx>': '<zy>',
    }).value
    expect(out).not.toMatch(/<(zm|zu|zh|v|zb|zx|zy)>/)
    expect(out).toContain('&lt;v&gt;')
  })

  it('lists the SDK integrations, and is part of the event body', () => {
    const sdk = { name: 'sentry.python.flask', integrations: ['flask', 'logging', 3, '<i>'] }
    const out = integrationsSection(sdk).value
    expect(out.match(/class="badge"/g)).toHaveLength(3)
    expect(out).toContain('&lt;i&gt;')
    expect(integrationsSection({ integrations: 'flask' }).value).toBe('')
    const body = eventBody({ sdk, request: { method: 'POST', url: '/orders' } }, null).value
    expect(body).toContain('<h2>Request</h2>')
    expect(body).toContain('<h2>SDK integrations</h2>')
  })
})
