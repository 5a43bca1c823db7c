import { describe, expect, it } from 'vitest'
import { isErrorSeverity, severityLevel } from './severity.ts'

describe('severityLevel', () => {
  it('maps severity numbers by range (Relay)', () => {
    const levels = Array.from({ length: 24 }, (_, i) => severityLevel(i + 1, ''))
    expect(levels).toEqual([
      ...Array(8).fill('debug'),
      ...Array(4).fill('info'),
      ...Array(4).fill('warning'),
      ...Array(4).fill('error'),
      ...Array(4).fill('fatal'),
    ])
  })

  it('falls back to the text when the number is unset or out of range', () => {
    expect(severityLevel(0, 'ERROR')).toBe('error')
    expect(severityLevel(0, 'fatal')).toBe('fatal')
    expect(severityLevel(0, 'Error3')).toBe('error')
    expect(severityLevel(0, 'warning')).toBe('warning')
    expect(severityLevel(99, 'critical')).toBe('fatal')
    expect(severityLevel(-1, 'err')).toBe('error')
  })

  it('lets a valid number win over the text', () => {
    expect(severityLevel(9, 'ERROR')).toBe('info')
    expect(severityLevel(17, 'INFO')).toBe('error')
  })

  it('defaults to info for unknown or missing severities', () => {
    expect(severityLevel(0, '')).toBe('info')
    expect(severityLevel(0, 'verbose')).toBe('info')
    expect(severityLevel(0, 'constructor')).toBe('info')
  })
})

describe('isErrorSeverity', () => {
  it('is true exactly for numbers 17–24, or ERROR/FATAL text without a number', () => {
    expect(isErrorSeverity(16, '')).toBe(false)
    expect(isErrorSeverity(17, '')).toBe(true)
    expect(isErrorSeverity(24, '')).toBe(true)
    expect(isErrorSeverity(25, '')).toBe(false)
    expect(isErrorSeverity(0, 'ERROR')).toBe(true)
    expect(isErrorSeverity(0, 'FATAL')).toBe(true)
    expect(isErrorSeverity(0, 'WARN')).toBe(false)
    expect(isErrorSeverity(13, 'ERROR')).toBe(false)
  })
})
