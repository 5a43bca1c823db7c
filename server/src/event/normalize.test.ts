import { describe, expect, it } from 'vitest'
import { normalizeEventId, normalizeLevel } from './normalize.ts'

describe('normalizeEventId', () => {
  it('keeps the canonical form and canonicalises a dashed, upper-case UUID', () => {
    expect(normalizeEventId('0123456789abcdef0123456789abcdef')).toBe(
      '0123456789abcdef0123456789abcdef',
    )
    expect(normalizeEventId('01234567-89AB-CDEF-0123-456789ABCDEF')).toBe(
      '0123456789abcdef0123456789abcdef',
    )
  })

  it('refuses anything that is not 32 hex digits', () => {
    for (const v of ['0123456789abcdef0123456789abcdeg', 'abc', '', 42, null, undefined]) {
      expect(normalizeEventId(v)).toBeUndefined()
    }
  })
})

describe('normalizeLevel', () => {
  it('maps level names and Python numbers to the five levels', () => {
    expect(
      ['FATAL', 'critical', 'Warn', 'log', 'trace', 50, 45, 30, 20, 0].map(normalizeLevel),
    ).toEqual([
      'fatal',
      'fatal',
      'warning',
      'info',
      'debug',
      'fatal',
      'error',
      'warning',
      'info',
      'debug',
    ])
  })

  it('never answers with a member of Object.prototype', () => {
    for (const v of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'nonsense', null]) {
      expect(normalizeLevel(v)).toBe('error')
    }
  })
})
