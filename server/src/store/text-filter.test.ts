import { describe, expect, it } from 'vitest'
import { substringPattern } from './text-filter.ts'

describe('substringPattern', () => {
  it('matches anywhere, lower-cased, with LIKE wildcards taken literally', () => {
    expect(substringPattern('TypeError')).toBe('%typeerror%')
    expect(substringPattern('100%_a\\b')).toBe('%100\\%\\_a\\\\b%')
  })
})
