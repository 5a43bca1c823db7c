import { describe, expect, it } from 'vitest'
import { normalizedEvent } from '../../test/support/normalized-event.ts'
import { firstLines, groupingMessage, normalizeMessage } from './message.ts'

const event = normalizedEvent

describe('firstLines', () => {
  it.each([
    ['one line', 'one line'],
    ['first\nsecond', 'first\nsecond'],
    ['\n\nfirst\n   \nsecond\r\n', 'first\nsecond'],
    ['first\nsecond\nthird', 'first\nsecond...'],
    ['first\r\nsecond\r\n\r\nTraceback (most recent call last):', 'first\nsecond...'],
  ])('%j → %j', (input, expected) => {
    expect(firstLines(input)).toBe(expected)
  })
})

describe('normalizeMessage', () => {
  it('trims to two lines, then parameterises', () => {
    expect(normalizeMessage('job 17 failed\nattempt 3\npayload: {"id": 9}')).toBe(
      'job <int> failed\nattempt <int>...',
    )
  })
})

describe('groupingMessage', () => {
  it('prefers the logging template to the rendered message', () => {
    const logentry = { message: 'user %s failed', params: ['bob'], formatted: 'user bob failed' }
    expect(groupingMessage(event({ logentry }))).toBe('user %s failed')
  })

  it('uses the rendered message when there is no template, and ignores blank ones', () => {
    expect(groupingMessage(event({ logentry: { message: ' ', formatted: 'hi' } }))).toBe('hi')
    expect(groupingMessage(event({}))).toBeUndefined()
  })
})
