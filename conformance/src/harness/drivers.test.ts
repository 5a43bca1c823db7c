import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadDriver, onCi } from './drivers.ts'

// A root holding none of the files drivers need: every runtime is missing there.
const empty = mkdtempSync(join(tmpdir(), 'drivers-empty-'))
afterAll(() => rmSync(empty, { recursive: true, force: true }))

describe('loadDriver with a runtime missing', () => {
  it('off CI: returns the driver with the reason it declares, for its tests to skip', () => {
    const driver = loadDriver('python', {}, empty)
    // The python driver needs one file, its venv's interpreter.
    expect(driver.needs).toHaveLength(1)
    expect(driver.missing).toBe(driver.needs[0]?.reason)
    expect(driver.missing).toMatch(/\S/)
  })

  it('on CI: throws, so the test file fails as the matrix runner fails the cell', () => {
    expect(() => loadDriver('python', { CI: 'true' }, empty)).toThrow(
      /^driver python: runtime missing on CI: /,
    )
    expect(() => loadDriver('python', { CI: '1' }, empty)).toThrow(/runtime missing on CI/)
  })

  it('reads CI as the matrix runner does', () => {
    expect([onCi({ CI: 'true' }), onCi({ CI: '1' }), onCi({ CI: 'false' }), onCi({})]).toEqual([
      true,
      true,
      false,
      false,
    ])
  })
})
