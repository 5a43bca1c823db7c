import { describe, expect, it } from 'vitest'
import { boundEventTime, MAX_SECS_IN_FUTURE, MAX_SECS_IN_PAST } from './clock.ts'
import { normalizeEvent } from './normalize.ts'

const RECEIVED = 1_795_000_000

function eventAt(timestamp: number, crumbs: number[] = []) {
  return normalizeEvent(
    {
      timestamp,
      message: 'm',
      breadcrumbs: crumbs.map((t) => ({ timestamp: t, message: 'c' })),
    },
    { received: RECEIVED },
  )
}

describe("an event's time, as Relay bounds it", () => {
  it('keeps a time within a minute ahead and 30 days back', () => {
    for (const t of [RECEIVED + MAX_SECS_IN_FUTURE, RECEIVED - MAX_SECS_IN_PAST, RECEIVED - 5]) {
      const e = eventAt(t)
      boundEventTime(e, RECEIVED)
      expect(e.timestamp).toBe(t)
      expect(e.errors).toBeUndefined()
    }
  })

  it('dates a later event when it arrived, its breadcrumbs moved alike, and notes it', () => {
    const sent = RECEIVED + 3600
    const e = eventAt(sent, [sent - 10, sent - 1])
    boundEventTime(e, RECEIVED)
    expect(e.timestamp).toBe(RECEIVED)
    expect(e.breadcrumbs?.values.map((b) => b.timestamp)).toEqual([RECEIVED - 10, RECEIVED - 1])
    expect(e.errors).toEqual([
      {
        type: 'future_timestamp',
        name: 'timestamp',
        sdk_time: new Date(sent * 1000).toISOString(),
        server_time: new Date(RECEIVED * 1000).toISOString(),
      },
    ])
  })

  it('dates an old event when it arrived (an event sent again years later)', () => {
    const sent = RECEIVED - 4 * 365 * 86400
    const e = eventAt(sent, [sent - 2])
    boundEventTime(e, RECEIVED)
    expect(e.timestamp).toBe(RECEIVED)
    expect(e.breadcrumbs?.values[0]?.timestamp).toBe(RECEIVED - 2)
    expect(e.errors?.[0]?.type).toBe('past_timestamp')
  })

  it('drops a breadcrumb time the move would put out of range', () => {
    const e = eventAt(RECEIVED - 40 * 86400, [1])
    boundEventTime(e, RECEIVED - 100 * 365 * 86400)
    expect(e.breadcrumbs?.values[0]?.timestamp).toBeUndefined()
  })
})
