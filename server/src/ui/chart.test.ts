import { describe, expect, it } from 'vitest'
import { foldIntoBuckets, rangeWindow } from './chart.ts'

const HOUR = 3_600_000
const DAY = 24 * HOUR

describe('rangeWindow', () => {
  it('ends with the bucket holding now and spans whole buckets', () => {
    const now = Date.UTC(2026, 0, 15, 13, 30)
    expect(rangeWindow({ span: 7 * DAY, bucket: DAY }, now)).toEqual({
      since: Date.UTC(2026, 0, 9),
      until: Date.UTC(2026, 0, 16),
    })
    expect(rangeWindow({ span: DAY, bucket: HOUR }, now)).toEqual({
      since: Date.UTC(2026, 0, 14, 14),
      until: Date.UTC(2026, 0, 15, 14),
    })
  })
})

describe('foldIntoBuckets', () => {
  it('adds each row to the bucket its hour falls in and drops rows outside the window', () => {
    const window = { since: 10 * DAY, until: 13 * DAY }
    const rows = [
      { hour: 10 * DAY, n: 1 },
      { hour: 10 * DAY + 5 * HOUR, n: 2 },
      { hour: 12 * DAY + 23 * HOUR, n: 4 },
      { hour: 9 * DAY, n: 100 },
      { hour: 13 * DAY, n: 1000 },
    ]
    const { starts, buckets } = foldIntoBuckets(
      window,
      DAY,
      rows,
      (r) => r.hour,
      (start) => ({ start, sum: 0 }),
      (b, r) => {
        b.sum += r.n
      },
    )
    expect(starts).toEqual([10 * DAY, 11 * DAY, 12 * DAY])
    expect(buckets).toEqual([
      { start: 10 * DAY, sum: 3 },
      { start: 11 * DAY, sum: 0 },
      { start: 12 * DAY, sum: 4 },
    ])
  })
})
