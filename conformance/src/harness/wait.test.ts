import { describe, expect, it } from 'vitest'
import { waitFor } from './wait.ts'

describe('waitFor', () => {
  it('returns the first truthy value', async () => {
    let calls = 0
    const value = await waitFor(async () => (++calls >= 3 ? { calls } : undefined), { interval: 1 })
    expect(value).toEqual({ calls: 3 })
  })

  it('treats throws as not yet and re-throws the last error on timeout', async () => {
    const failing = waitFor(
      async () => {
        throw new Error('still wrong')
      },
      { timeout: 30, interval: 5, message: 'the thing' },
    )
    await expect(failing).rejects.toThrow(/the thing not met after 30 ms .*: still wrong/)
  })

  it('times out with the message when the value never comes', async () => {
    await expect(waitFor(async () => false, { timeout: 20, interval: 5 })).rejects.toThrow(
      /condition not met after 20 ms/,
    )
  })
})
