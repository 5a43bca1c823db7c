import { describe, expect, it } from 'vitest'
import { safeNext } from './auth.ts'

describe('safeNext', () => {
  it('keeps same-origin relative paths, percent-encoding what is not ASCII', () => {
    expect(safeNext('/projects/1/issues?tab=resolved#x')).toBe('/projects/1/issues?tab=resolved#x')
    expect(safeNext('/issues/ü')).toBe('/issues/%C3%BC')
  })

  it('sends everything that could leave the site to /', () => {
    for (const bad of [
      '//evil.example/',
      '/\t/evil.example/',
      '/\n/evil.example',
      '/\\evil.example',
      'https://evil.example/',
      'javascript:alert(1)',
      '/ /evil',
      '',
      undefined,
      42,
    ]) {
      expect(safeNext(bad), String(bad)).toBe('/')
    }
  })
})
