import { describe, expect, it } from 'vitest'
import { normalizeEvent } from '../event/normalize.ts'
import {
  decodeSearch,
  encodeSearch,
  eventSearchFields,
  eventSearchString,
  MAX_TAGS,
} from './event-tags.ts'
import { eventMatches } from './match-event.ts'
import { parseQuery } from './query.ts'

const event = (raw: Record<string, unknown>) => normalizeEvent(raw, { received: 1_700_000_000 })

describe('eventSearchFields', () => {
  it('promotes the fields Sentry promotes, then the SDK tags, one value per key', () => {
    const e = event({
      level: 'warning',
      release: 'shop@2.1.7',
      dist: '42',
      environment: 'production',
      transaction: 'GET /checkout',
      server_name: 'web-1',
      request: { url: 'https://shop.example/checkout', method: 'GET' },
      contexts: {
        browser: { name: 'Chrome', version: '120.0' },
        os: { name: 'Windows', version: '11' },
        runtime: { name: 'node', version: 'v20.1.0' },
        device: { model: 'Pixel 8', family: 'Pixel' },
      },
      user: { email: 'bob@example.com', ip_address: '10.0.0.1' },
      exception: {
        values: [
          {
            type: 'TypeError',
            value: 'Cannot read properties of undefined',
            mechanism: { type: 'onerror', handled: false },
            stacktrace: {
              frames: [
                { function: 'outer', filename: 'app.js' },
                { function: 'pay', filename: 'cart.js' },
              ],
            },
          },
        ],
      },
      tags: { feature: 'checkout', level: 'ignored-sdk-copy' },
    })
    const f = eventSearchFields(e)
    expect(f.tags).toEqual([
      ['level', 'warning'],
      ['release', 'shop@2.1.7'],
      ['dist', '42'],
      ['environment', 'production'],
      ['transaction', 'GET /checkout'],
      ['server_name', 'web-1'],
      ['url', 'https://shop.example/checkout'],
      ['browser', 'Chrome 120.0'],
      ['browser.name', 'Chrome'],
      ['os', 'Windows 11'],
      ['os.name', 'Windows'],
      ['runtime', 'node v20.1.0'],
      ['runtime.name', 'node'],
      ['device', 'Pixel 8'],
      ['device.family', 'Pixel'],
      ['user', 'email:bob@example.com'],
      ['user.email', 'bob@example.com'],
      ['user.ip', '10.0.0.1'],
      ['handled', 'no'],
      ['mechanism', 'onerror'],
      ['feature', 'checkout'],
    ])
    expect(f.text).toBe('TypeError Cannot read properties of undefined pay cart.js outer app.js')
    expect(f.dropped).toEqual([])
  })

  it("reads handled and mechanism as Sentry does: the last exception's, unhandled if any is", () => {
    const tagsOf = (values: unknown[]) =>
      new Map(eventSearchFields(event({ exception: { values } })).tags)
    // sentry-java under Spring MVC: the thrown exception last, with the resolver's mechanism;
    // its cause first, marked chained.
    const java = tagsOf([
      { type: 'SQLException', value: 'timeout', mechanism: { type: 'chained', handled: true } },
      {
        type: 'IllegalStateException',
        value: 'order 101 could not be loaded',
        mechanism: { type: 'Spring6ExceptionResolver', handled: false },
      },
    ])
    expect([java.get('handled'), java.get('mechanism')]).toEqual(['no', 'Spring6ExceptionResolver'])
    // @sentry/browser 10, an error with a cause thrown in a timer: the capturing mechanism is on
    // the first exception (the cause), the thrown one carries the linked-errors default. Sentry
    // tags the thrown one's mechanism; the chain is still unhandled.
    const linked = tagsOf([
      {
        type: 'SyntaxError',
        value: 'bad JSON',
        mechanism: { type: 'auto.browser.browserapierrors.setTimeout', handled: false },
      },
      { type: 'Error', value: 'Config load failed', mechanism: { type: 'generic', handled: true } },
    ])
    expect([linked.get('handled'), linked.get('mechanism')]).toEqual(['no', 'generic'])
    // Only the first exception marked: its mechanism.
    const firstOnly = tagsOf([
      { type: 'io::Error', value: 'disk', mechanism: { type: 'panic', handled: false } },
      { type: 'anyhow::Error', value: 'sync failed' },
    ])
    expect([firstOnly.get('handled'), firstOnly.get('mechanism')]).toEqual(['no', 'panic'])
  })

  it('tags the logger, the URL without its query, and an OS version without blanks', () => {
    const { tags } = eventSearchFields(
      event({
        logger: 'billing.service',
        request: { url: 'https://shop.example/pay?order=7#top' },
        contexts: { os: { name: 'Debian', version: '12.11\n' } },
      }),
    )
    expect(tags).toEqual(
      expect.arrayContaining([
        ['logger', 'billing.service'],
        ['url', 'https://shop.example/pay'],
        ['os', 'Debian 12.11'],
      ]),
    )
  })

  it('never indexes a scrubbed value, and drops over-long or surplus tags with a note', () => {
    const many = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`t${i}`, 'v']))
    const e = event({
      user: { id: '[Filtered]', email: 'a@b.c' },
      tags: { secret: '[Filtered]', ['k'.repeat(33)]: 'v', ...many },
      message: 'token [Filtered]',
    })
    // Normalisation trims tag values to 200 characters; a longer one is dropped here all the same.
    e.tags.unshift(['long', 'x'.repeat(201)])
    const f = eventSearchFields(e)
    expect(f.tags.find(([k]) => k === 'secret')).toBe(undefined)
    expect(f.tags.find(([k]) => k === 'user')).toEqual(['user', 'email:a@b.c'])
    expect(f.tags.find(([k]) => k === 'user.id')).toBe(undefined)
    expect(f.tags.length).toBe(MAX_TAGS)
    expect(f.dropped.filter((d) => d.type === 'value_too_long')).toEqual([
      { type: 'value_too_long', name: 'tags.long' },
    ])
    expect(f.dropped.filter((d) => d.type === 'invalid_data').length).toBe(1)
    expect(f.dropped.filter((d) => d.type === 'too_many_items').length).toBeGreaterThan(0)
  })

  it('round-trips the compact per-event form and matches events by the language', () => {
    const s = encodeSearch(
      [
        ['browser.name', 'Chrome'],
        ['url', 'https://shop/checkout'],
      ],
      'TypeError boom',
    )
    expect(decodeSearch(s)).toEqual({
      tags: new Map([
        ['browser.name', 'Chrome'],
        ['url', 'https://shop/checkout'],
      ]),
      text: 'TypeError boom',
    })
    const e = { search: s, received: 1000 }
    const m = (q: string) => eventMatches(parseQuery(q, 5000), e)
    expect(m('browser.name:Chrome')).toBe(true)
    expect(m('browser.name:chrome')).toBe(false)
    expect(m('!browser.name:Chrome')).toBe(false)
    expect(m('url:*checkout')).toBe(true)
    expect(m('browser.name:[Firefox, Chrome]')).toBe(true)
    expect(m('has:url !has:user')).toBe(true)
    expect(m('has:user')).toBe(false)
    expect(m('typeerror')).toBe(true)
    expect(m('nothing-here')).toBe(false)
    expect(m('lastSeen:-2s')).toBe(false)
    expect(m('lastSeen:-5s')).toBe(true)
    expect(eventMatches(parseQuery('has:url', 0), { search: null, received: 0 })).toBe(false)
  })

  it("keeps per event only the tags that are not the row's columns, and its type and value", () => {
    const s = eventSearchString(
      [
        ['level', 'error'],
        ['release', 'r@1'],
        ['environment', 'production'],
        ['component', 'web'],
        ['browser.name', 'Chrome'],
      ],
      'TypeError',
      'x is [Filtered]',
    )
    expect(decodeSearch(s)).toEqual({
      tags: new Map([['browser.name', 'Chrome']]),
      text: 'TypeError x is [Filtered]',
    })
    const matches = (q: string) =>
      eventMatches(parseQuery(q, 0), {
        search: s,
        received: 0,
        environment: 'production',
        level: 'error',
      })
    expect([
      matches('environment:production level:error browser.name:Chrome'),
      matches('release:r@1'),
    ]).toEqual([true, false])
  })
})
