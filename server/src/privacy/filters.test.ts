import { describe, expect, it } from 'vitest'
import { normalizeEvent } from '../event/normalize.ts'
import { filterPolicy, inboundFilter, isLegacyBrowser, isWebCrawler } from './filters.ts'
import { cidrError, NEW_PROJECT_PRIVACY, settingsProblem } from './settings.ts'

const ALL_ON = {
  localhost: true,
  browserExtensions: true,
  legacyBrowsers: true,
  webCrawlers: true,
  errorMessages: ['ChunkLoadError: Loading chunk *', '*error-decoder.html?invariant={418,419}*'],
  releases: ['1.2.*'],
  clientIps: ['203.0.113.0/24', '2001:db8::/32'],
}

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'

const ev = (raw: Record<string, unknown>) => normalizeEvent(raw, { received: 1 })
const ua = (agent: string) => ({ request: { headers: { 'User-Agent': agent } } })

describe('inbound filters: each drops its case and keeps its near miss', () => {
  const cases: [string, Record<string, unknown>, string | undefined, string | undefined][] = [
    ['client ip in block', {}, '203.0.113.9', 'ip-address'],
    ['client ip outside', {}, '198.51.100.9', undefined],
    ['client ipv6 in block', {}, '2001:db8::1', 'ip-address'],
    ['release glob', { release: '1.2.7' }, undefined, 'release-version'],
    ['release near miss', { release: '1.3.0' }, undefined, undefined],
    [
      'message glob on exception',
      { exception: { values: [{ type: 'ChunkLoadError', value: 'Loading chunk 7 failed' }] } },
      undefined,
      'error-message',
    ],
    [
      'message glob with alternatives',
      { message: 'see https://reactjs.org/docs/error-decoder.html?invariant=418 x' },
      undefined,
      'error-message',
    ],
    [
      'message near miss',
      { message: 'see https://reactjs.org/docs/error-decoder.html?invariant=420 x' },
      undefined,
      undefined,
    ],
    ['localhost url', { request: { url: 'http://localhost:3000/x' } }, undefined, 'localhost'],
    ['localhost subdomain', { request: { url: 'http://app.localhost/x' } }, undefined, 'localhost'],
    ['file url', { request: { url: 'file:///C:/app/index.html' } }, undefined, 'localhost'],
    ['loopback user ip', { user: { ip_address: '127.0.0.1' } }, undefined, 'localhost'],
    [
      'localhost host header',
      { request: { headers: { Host: 'localhost:8080' } } },
      undefined,
      'localhost',
    ],
    [
      'localhost near miss',
      { request: { url: 'https://localhost.example.com/x' } },
      undefined,
      undefined,
    ],
    [
      'extension message',
      { exception: { values: [{ type: 'Error', value: 'Extension context invalidated.' }] } },
      undefined,
      'browser-extensions',
    ],
    [
      'extension frame',
      {
        exception: {
          values: [
            {
              type: 'TypeError',
              value: 'x is undefined',
              stacktrace: {
                frames: [
                  { abs_path: 'https://example.com/app.js' },
                  { abs_path: 'chrome-extension://abcdef/content.js' },
                ],
              },
            },
          ],
        },
      },
      undefined,
      'browser-extensions',
    ],
    [
      'extension near miss',
      {
        exception: {
          values: [
            {
              type: 'TypeError',
              value: 'x is undefined',
              stacktrace: { frames: [{ abs_path: 'https://example.com/chrome-extension.js' }] },
            },
          ],
        },
      },
      undefined,
      undefined,
    ],
    [
      'legacy browser',
      ua('Mozilla/4.0 (compatible; MSIE 8.0; Windows NT 6.1; Trident/4.0)'),
      undefined,
      'legacy-browsers',
    ],
    ['current browser', ua(CHROME), undefined, undefined],
    [
      'crawler',
      ua('Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'),
      undefined,
      'web-crawlers',
    ],
  ]
  const policy = filterPolicy(ALL_ON)
  it.each(cases)('%s', (_name, raw, ip, reason) => {
    expect(inboundFilter(ev(raw), ip, policy)).toBe(reason)
  })

  it('filters nothing with every filter off, and new projects filter extensions and crawlers', () => {
    const off = filterPolicy({
      ...ALL_ON,
      localhost: false,
      browserExtensions: false,
      legacyBrowsers: false,
      webCrawlers: false,
      errorMessages: [],
      releases: [],
      clientIps: [],
    })
    expect(inboundFilter(ev({ request: { url: 'http://localhost/' } }), '127.0.0.1', off)).toBe(
      undefined,
    )
    const fresh = filterPolicy(NEW_PROJECT_PRIVACY.filters)
    expect(inboundFilter(ev(ua('Googlebot/2.1')), undefined, fresh)).toBe('web-crawlers')
    expect(inboundFilter(ev({ request: { url: 'http://localhost/' } }), undefined, fresh)).toBe(
      undefined,
    )
  })
})

describe('user agents', () => {
  const agents: [string, boolean, boolean][] = [
    [CHROME, false, false],
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
      false,
      false,
    ],
    ['Mozilla/5.0 (Windows NT 10.0; rv:128.0) Gecko/20100101 Firefox/128.0', false, false],
    ['Mozilla/5.0 (compatible; MSIE 9.0; Windows NT 6.1; Trident/5.0)', true, false],
    ['Mozilla/5.0 (compatible; MSIE 10.0; Windows NT 6.2; Trident/6.0)', false, false],
    ['Opera/9.80 (Windows NT 6.1) Presto/2.12.388 Version/12.16', true, false],
    ['Opera/9.80 (J2ME/MIDP; Opera Mini/7.1.32052/29.3417; U; en) Presto/2.8.119', true, false],
    [
      'Mozilla/5.0 (Linux; U; Android 2.3.4; en-us) AppleWebKit/533.1 (KHTML, like Gecko) Version/4.0 Mobile Safari/533.1',
      true,
      false,
    ],
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_6_8) AppleWebKit/534.59 (KHTML, like Gecko) Version/5.1.9 Safari/534.59',
      true,
      false,
    ],
    ['Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)', false, true],
    ['Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)', false, true],
    ['Slackbot 1.0 (+https://api.slack.com/robots)', false, false],
    ['facebookexternalhit/1.1', false, true],
  ]
  it.each(agents)('%s legacy=%s crawler=%s', (agent, legacy, crawler) => {
    expect(isLegacyBrowser(agent)).toBe(legacy)
    expect(isWebCrawler(agent)).toBe(crawler)
  })
})

describe('settings validation', () => {
  it('names the entry that does not parse', () => {
    const base = structuredClone(NEW_PROJECT_PRIVACY)
    const bad: [(s: typeof base) => void, string][] = [
      [
        (s) => s.filters.releases.push('1.*', '{1,2'),
        "filters.releases[1] \"{1,2\": a '{' without its '}'",
      ],
      [
        (s) => s.filters.errorMessages.push('x\\'),
        'filters.error_messages[0] "x\\\\": a trailing backslash',
      ],
      [
        (s) => s.filters.clientIps.push('10.0.0.0/33'),
        'filters.client_ips[0] "10.0.0.0/33": prefix length must be 0–32',
      ],
      [
        (s) => s.filters.clientIps.push('10.0.0'),
        'filters.client_ips[0] "10.0.0": not an IP address or CIDR block',
      ],
      [(s) => s.sensitiveFields.push(' '), 'sensitive_fields[0] " ": an empty field name'],
      [
        (s) => s.safeFields.push(...Array.from({ length: 101 }, (_, i) => `f${i}`)),
        'safe_fields: 101 entries, at most 100',
      ],
    ]
    for (const [change, detail] of bad) {
      const s = structuredClone(base)
      change(s)
      expect(settingsProblem(s)?.detail).toBe(detail)
    }
    expect(settingsProblem(base)).toBeUndefined()
    expect(cidrError('2001:db8::/32')).toBeUndefined()
    expect(cidrError('192.168.0.1')).toBeUndefined()
  })
})
