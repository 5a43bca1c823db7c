import { describe, expect, it } from 'vitest'
import { compileGlob, compileGlobs, globError } from './glob.ts'

/** The same glob as a regular expression (what the matcher replaced), for the comparison. */
function reference(pattern: string): RegExp {
  let out = ''
  let inBraces = false
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string
    if (c === '\\') {
      out += (pattern[i + 1] as string).replace(/[.*+?^${}()|[\]\\/-]/, '\\$&')
      i++
    } else if (c === '*') out += '.*'
    else if (c === '?') out += '.'
    else if (c === '{') {
      inBraces = true
      out += '(?:'
    } else if (c === '}') {
      inBraces = false
      out += ')'
    } else if (c === ',' && inBraces) out += '|'
    else out += c.replace(/[.*+?^${}()|[\]\\/-]/, '\\$&')
  }
  return new RegExp(`^${out}$`, 'is')
}

describe('globs', () => {
  it('reads *, ?, braces and escapes, case-insensitively over the whole text', () => {
    expect(compileGlob('1.2.*').test('1.2.99')).toBe(true)
    expect(compileGlob('1.2.*').test('1x2.99')).toBe(false)
    expect(compileGlob('a?c').test('ABC')).toBe(true)
    expect(compileGlob('a?c').test('ac')).toBe(false)
    expect(compileGlob('{x,y}z').test('yz')).toBe(true)
    expect(compileGlob('{x,y}z').test('xyz')).toBe(false)
    expect(compileGlob('\\*literal').test('*LITERAL')).toBe(true)
    expect(compileGlob('\\*literal').test('aliteral')).toBe(false)
    expect(compileGlob('*failed*to*fetch*').test('TypeError: Failed to fetch')).toBe(true)
    expect(compileGlob('*').test('')).toBe(true)
    expect(compileGlob('a**b').test('ab')).toBe(true)
    expect(compileGlob('*x?y*').test('line one\nxzy')).toBe(true)
    expect(compileGlobs(['nope', 'ye?'])?.test('yes')).toBe(true)
    expect(compileGlobs([])).toBeUndefined()
  })

  it('matches what the regular expression of the same glob matches', () => {
    // Small alphabets make overlaps, repeats and near misses common.
    let seed = 7
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      return seed % n
    }
    const pick = (chars: string, max: number) =>
      Array.from({ length: rand(max + 1) }, () => chars[rand(chars.length)]).join('')
    for (let i = 0; i < 3000; i++) {
      let pattern = pick('ab*?', 7)
      if (rand(4) === 0)
        pattern = `${pick('ab*', 2)}{${pick('ab?', 2)},${pick('ab*', 2)}}${pick('ab*?', 3)}`
      const text = pick('abAB', 9)
      expect(compileGlob(pattern).test(text), `${pattern} ~ ${text}`).toBe(
        reference(pattern).test(text),
      )
    }
  })

  it('reads a long text once per piece, whatever the pattern', () => {
    // As a regular expression this took seconds: each `*` backtracked over the whole text.
    const text = 'failed to '.repeat(5000)
    const glob = compileGlob('*failed*to*fetch*x*y*')
    for (let i = 0; i < 200; i++) expect(glob.test(text)).toBe(false)
  })

  it('refuses broken patterns and too many alternatives', () => {
    expect(globError('')).toBe('an empty pattern')
    expect(globError('x\\')).toBe('a trailing backslash')
    expect(globError('{a,{b}}')).toBe('nested braces')
    expect(globError('a}')).toBe("a '}' without its '{'")
    expect(globError('{a')).toBe("a '{' without its '}'")
    expect(globError('{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}')).toBeUndefined()
    expect(globError('{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}')).toBe('more than 64 alternatives')
  })
})
