import { describe, expect, it } from 'vitest'
import { retryDelay } from './deliveries.ts'

describe('retryDelay', () => {
  const timing = { backoffBaseMs: 30_000, backoffMaxMs: 3_600_000 }

  it('doubles from the base per failed attempt', () => {
    expect([1, 2, 3, 4].map((n) => retryDelay(n, timing))).toEqual([
      30_000, 60_000, 120_000, 240_000,
    ])
  })

  it('is capped, also for absurd attempt counts', () => {
    expect(retryDelay(8, timing)).toBe(3_600_000)
    expect(retryDelay(10_000, timing)).toBe(3_600_000)
    expect(retryDelay(0, timing)).toBe(30_000)
  })
})
