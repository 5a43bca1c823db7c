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
