import { describe, expect, it } from 'vitest'
import { formatLogMessage } from './logentry-format.ts'
import { normalizeEvent } from './normalize.ts'

describe('formatLogMessage', () => {
  it('renders Python printf templates, positional and named', () => {
    expect(formatLogMessage('hello, %s!', ['world'])).toBe('hello, world!')
    expect(formatLogMessage('hello, %(name)s!', { name: 'world' })).toBe('hello, world!')
    expect(formatLogMessage('%d%% of %s took %.2f s', [42.9, 'jobs', 1.5])).toBe(
      '42% of jobs took 1.50 s',
    )
    expect(formatLogMessage('%s %s', [null, { a: 1 }])).toBe('null {"a":1}')
  })

  it('renders Java {} and .NET {0} templates', () => {
    expect(formatLogMessage('hello, {}!', ['world'])).toBe('hello, world!')
    expect(formatLogMessage('{1} before {0}', ['a', 'b'])).toBe('b before a')
    expect(formatLogMessage('{{literal}} {}', [1])).toBe('{literal} 1')
  })

  it('gives nothing when the parameters do not fit, or there is nothing to format', () => {
    expect(formatLogMessage('%s and %s', ['one'])).toBeUndefined()
    expect(formatLogMessage('%d items', ['many'])).toBeUndefined()
    expect(formatLogMessage('{} {}', ['one'])).toBeUndefined()
    expect(formatLogMessage('%(name)s', ['positional'])).toBeUndefined()
    expect(formatLogMessage('plain text', ['x'])).toBeUndefined()
  })
})

describe('normalizeEvent logentry', () => {
  const received = 1_700_000_000
  it('renders a template sent without formatted, keeping the template', () => {
    const e = normalizeEvent(
      { logentry: { message: 'user %s failed', params: ['bob'] } },
      { received },
    )
    expect(e.logentry).toEqual({
      message: 'user %s failed',
      formatted: 'user bob failed',
      params: ['bob'],
    })
  })

  it('keeps what the SDK rendered, and the template when the parameters do not fit', () => {
    const sent = normalizeEvent(
      { logentry: { message: 'a %s', params: ['b'], formatted: 'SDK text' } },
      { received },
    )
    expect(sent.logentry?.formatted).toBe('SDK text')
    const raven = normalizeEvent(
      { message: 'raven text', logentry: { message: 'a %s', params: ['b'] } },
      { received },
    )
    expect(raven.logentry?.formatted).toBe('raven text')
    // raven-python 6 sends the template twice and `formatted: null`: rendered as a template.
    const template = normalizeEvent(
      {
        message: 'raven message %s',
        logentry: {
          message: 'raven message %s',
          params: ["'p1'"],
          formatted: null,
        },
      },
      { received },
    )
    expect(template.logentry?.formatted).toBe("raven message 'p1'")
    const broken = normalizeEvent({ logentry: { message: 'a %s %s', params: ['b'] } }, { received })
    expect(broken.logentry?.formatted).toBeUndefined()
  })
})
