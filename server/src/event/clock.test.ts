import { describe, expect, it } from 'vitest'
import {
  boundEventTime,
  clockDrift,
  correctClockDrift,
  MAX_SECS_IN_FUTURE,
  MAX_SECS_IN_PAST,
  MIN_CLOCK_DRIFT_MS,
} from './clock.ts'
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

describe("the sender's clock, as Relay corrects it by the envelope's sent_at", () => {
  const NOW = RECEIVED * 1000
  const MIN = 60_000

  it('reads a drift of 55 minutes or more either way, and none under it', () => {
    expect(MIN_CLOCK_DRIFT_MS).toBe(55 * MIN)
    const at = (ms: number) => new Date(ms).toISOString()
    expect(clockDrift(at(NOW - 55 * MIN), NOW)).toBe(55 * MIN)
    expect(clockDrift(at(NOW - 55 * MIN + 1), NOW)).toBe(0)
    expect(clockDrift(at(NOW + 55 * MIN), NOW)).toBe(-55 * MIN)
    expect(clockDrift(at(NOW + 55 * MIN - 1), NOW)).toBe(0)
    expect(clockDrift(at(NOW - 2 * 3_600_000), NOW)).toBe(2 * 3_600_000)
    expect(clockDrift(at(NOW), NOW)).toBe(0)
  })

  it('reads RFC 3339 with an offset and Unix seconds', () => {
    // 2 h behind, written in a zone 2 h east: the same instant.
    const behind = new Date(NOW - 2 * 3_600_000)
    const local = `${new Date(behind.getTime() + 2 * 3_600_000).toISOString().slice(0, 23)}+02:00`
    expect(clockDrift(local, NOW)).toBe(2 * 3_600_000)
    expect(clockDrift(behind.getTime() / 1000, NOW)).toBe(2 * 3_600_000)
  })

  it('corrects nothing without a readable sent_at', () => {
    for (const v of [undefined, null, '', 'yesterday', '2026-13-45T99:00:00Z', {}, [], true, -5]) {
      expect(clockDrift(v, NOW), JSON.stringify(v)).toBe(0)
    }
  })

  it('moves a lagging clock’s event, breadcrumbs and start_timestamp forward, and notes it', () => {
    const drift = 2 * 3600
    const happened = RECEIVED - 5
    const raw = {
      timestamp: happened - drift,
      start_timestamp: new Date((happened - drift - 1) * 1000).toISOString(),
      message: 'm',
      breadcrumbs: [{ timestamp: happened - drift - 10 }, { message: 'no time' }],
    }
    const e = normalizeEvent(raw, { received: RECEIVED })
    correctClockDrift(e, drift, RECEIVED, raw)
    expect(e.timestamp).toBe(happened)
    expect(e.breadcrumbs?.values.map((b) => b.timestamp)).toEqual([happened - 10, undefined])
    expect(raw.start_timestamp).toBe(happened - 1)
    expect(e.errors).toEqual([
      {
        type: 'clock_drift',
        name: 'timestamp',
        sdk_time: new Date((RECEIVED - drift) * 1000).toISOString(),
        server_time: new Date(RECEIVED * 1000).toISOString(),
      },
    ])
  })

  it('moves a clock running ahead back', () => {
    const raw = {
      timestamp: RECEIVED + 3600 - 2,
      breadcrumbs: [{ timestamp: RECEIVED + 3600 - 3 }],
    }
    const e = normalizeEvent(raw, { received: RECEIVED })
    correctClockDrift(e, -3600, RECEIVED, raw)
    expect(e.timestamp).toBe(RECEIVED - 2)
    expect(e.breadcrumbs?.values[0]?.timestamp).toBe(RECEIVED - 3)
    expect(e.errors?.[0]).toMatchObject({
      type: 'clock_drift',
      sdk_time: new Date((RECEIVED + 3600) * 1000).toISOString(),
    })
  })

  it('leaves an event without a time of its own at the receive time, noted', () => {
    const raw = { message: 'm' }
    const e = normalizeEvent(raw, { received: RECEIVED })
    correctClockDrift(e, 7200, RECEIVED, raw)
    expect(e.timestamp).toBe(RECEIVED)
    expect(e.errors?.[0]?.type).toBe('clock_drift')
  })

  it('does nothing for no drift', () => {
    const raw = { timestamp: RECEIVED - 3, message: 'm' }
    const e = normalizeEvent(raw, { received: RECEIVED })
    correctClockDrift(e, 0, RECEIVED, raw)
    expect(e.timestamp).toBe(RECEIVED - 3)
    expect(e.errors).toBeUndefined()
  })
})
