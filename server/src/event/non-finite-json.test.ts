import { describe, expect, it } from 'vitest'
import { repairNonFiniteJson } from './non-finite-json.ts'

describe('repairNonFiniteJson', () => {
  it('reads the tokens Python json.dumps writes as null, outside strings only', () => {
    const text = '{"a":NaN,"b":[Infinity,-Infinity],"c":"NaN Infinity \\"NaN\\"","d":1}'
    expect(JSON.parse(repairNonFiniteJson(text) ?? '')).toEqual({
      a: null,
      b: [null, null],
      c: 'NaN Infinity "NaN"',
      d: 1,
    })
  })

  it('leaves nothing to rewrite alone, and does not touch longer words', () => {
    expect(repairNonFiniteJson('{"a":1}')).toBeUndefined()
    expect(repairNonFiniteJson('{"a":NaNa}')).toBeUndefined()
    expect(repairNonFiniteJson('{"a":xInfinity}')).toBeUndefined()
  })
})
