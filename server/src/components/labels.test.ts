import { describe, expect, it } from 'vitest'
import { labelProblem } from './labels.ts'

describe('component label rules', () => {
  it.each(['a', 'worker', 'hosted-app', 'cli-2', 'x'.repeat(32), 'a--b'])('accepts %j', (l) => {
    expect(labelProblem(l)).toBeUndefined()
  })

  it.each([
    [undefined, /required/],
    ['', /required/],
    [['worker'], /required/],
    ['x'.repeat(33), /at most 32/],
    ['Worker', /lowercase/],
    ['wörker', /"ö"/],
    ['a.b', /"\."/],
    ['9lives', /start with a lowercase letter/],
    ['-x', /start with a lowercase letter/],
    ['x-', /end with a dash/],
  ])('refuses %j', (label, why) => {
    expect(labelProblem(label)).toMatch(why)
  })
})
