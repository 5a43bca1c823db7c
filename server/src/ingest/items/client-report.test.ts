import { describe, expect, it } from 'vitest'
import { clockDrift } from '../../event/clock.ts'
import { parseClientReport } from './client-report.ts'

const NOW = Date.UTC(2026, 0, 5, 10, 30, 0)
const parse = (v: unknown, sentAt?: unknown) =>
  parseClientReport(
    Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)),
    NOW,
    clockDrift(sentAt, NOW),
  )

describe('parseClientReport', () => {
  it('reads float-second and RFC 3339 timestamps', () => {
    expect(parse({ timestamp: NOW / 1000 - 60.5 })?.at).toBe(NOW - 60_500)
    expect(parse({ timestamp: new Date(NOW - 1000).toISOString() })?.at).toBe(NOW - 1000)
    expect(parse({})?.at).toBe(NOW)
    expect(parse({ timestamp: 'soon' })?.at).toBe(NOW)
  })

  it('corrects for clock drift of 55 minutes or more using sent_at, not for less', () => {
    const behind = 2 * 3_600_000
    expect(parse({ timestamp: (NOW - behind - 5000) / 1000 }, (NOW - behind) / 1000)?.at).toBe(
      NOW - 5000,
    )
    const small = 30 * 60_000
    expect(
      parse({ timestamp: (NOW - small - 5000) / 1000 }, new Date(NOW - small).toISOString())?.at,
    ).toBe(NOW - small - 5000)
  })

  it('keeps valid entries only and ignores Relay-only arrays', () => {
    expect(
      parse({
        discarded_events: [
          { reason: 'send_error', category: 'error', quantity: 2 },
          { reason: '', category: 'error', quantity: 2 },
          { reason: 'send_error', category: 'error', quantity: 2.5 },
          { reason: 'send_error', quantity: 2 },
          null,
        ],
        rate_limited_events: [{ reason: 'x', category: 'error', quantity: 1 }],
      })?.discards,
    ).toEqual([{ reason: 'send_error', category: 'error', quantity: 2 }])
  })

  it('returns undefined for payloads that are no report', () => {
    for (const v of ['', 'nope', '[]', '"text"', '{"discarded_events": {}}']) {
      expect(parse(v), v).toBeUndefined()
    }
  })
})
