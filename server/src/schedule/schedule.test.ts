import { describe, expect, it } from 'vitest'
import { cronProblem, nextRun, parseMonitorConfig } from './schedule.ts'

const at = (iso: string) => Date.parse(iso)
const iso = (ms: number) => new Date(ms).toISOString()

describe('nextRun: crontab', () => {
  const every5 = { type: 'crontab', value: '*/5 * * * *' } as const

  it('is strictly after the reference time', () => {
    expect(iso(nextRun(every5, 'UTC', at('2026-01-01T10:05:00Z')))).toBe('2026-01-01T10:10:00.000Z')
    expect(iso(nextRun(every5, 'UTC', at('2026-01-01T10:04:59.999Z')))).toBe(
      '2026-01-01T10:05:00.000Z',
    )
    expect(iso(nextRun(every5, 'UTC', at('2026-01-01T10:07:31Z')))).toBe('2026-01-01T10:10:00.000Z')
  })

  it('evaluates the expression in the monitor time zone', () => {
    const daily3 = { type: 'crontab', value: '0 3 * * *' } as const
    // 03:00 in Berlin is 02:00 UTC in winter.
    expect(iso(nextRun(daily3, 'Europe/Berlin', at('2026-01-10T12:00:00Z')))).toBe(
      '2026-01-11T02:00:00.000Z',
    )
    expect(iso(nextRun(daily3, 'America/New_York', at('2026-01-10T12:00:00Z')))).toBe(
      '2026-01-11T08:00:00.000Z',
    )
  })

  it('follows daylight-saving changes in the monitor time zone', () => {
    const daily3 = { type: 'crontab', value: '0 3 * * *' } as const
    // Spring forward (2026-03-29 in Europe): 03:00 CEST is 01:00 UTC, 23 h after the day before.
    const before = nextRun(daily3, 'Europe/Berlin', at('2026-03-27T12:00:00Z'))
    expect(iso(before)).toBe('2026-03-28T02:00:00.000Z')
    const after = nextRun(daily3, 'Europe/Berlin', before)
    expect(iso(after)).toBe('2026-03-29T01:00:00.000Z')
    expect(after - before).toBe(23 * 3_600_000)
    // Fall back (2026-10-25): 02:30 happens twice, the job runs once.
    const half2 = { type: 'crontab', value: '30 2 * * *' } as const
    const first = nextRun(half2, 'Europe/Berlin', at('2026-10-24T12:00:00Z'))
    expect(iso(first)).toBe('2026-10-25T00:30:00.000Z')
    expect(iso(nextRun(half2, 'Europe/Berlin', first))).toBe('2026-10-26T01:30:00.000Z')
  })

  it('accepts nicknames', () => {
    const daily = { type: 'crontab', value: '@daily' } as const
    expect(iso(nextRun(daily, 'UTC', at('2026-01-01T10:00:00Z')))).toBe('2026-01-02T00:00:00.000Z')
  })
})

describe('nextRun: interval', () => {
  it('adds N units to the reference truncated to the minute', () => {
    const ten = { type: 'interval', value: 10, unit: 'minute' } as const
    expect(iso(nextRun(ten, 'UTC', at('2026-01-01T10:03:42Z')))).toBe('2026-01-01T10:13:00.000Z')
    const two = { type: 'interval', value: 2, unit: 'hour' } as const
    expect(iso(nextRun(two, 'UTC', at('2026-01-01T23:30:10Z')))).toBe('2026-01-02T01:30:00.000Z')
  })

  it('does calendar arithmetic for days, weeks, months and years in the time zone', () => {
    const day = { type: 'interval', value: 1, unit: 'day' } as const
    // 2026-03-28 09:00 Berlin (CET) + 1 day = 2026-03-29 09:00 CEST: 23 h later in UTC.
    const start = at('2026-03-28T08:00:00Z')
    expect(nextRun(day, 'Europe/Berlin', start) - start).toBe(23 * 3_600_000)
    expect(nextRun(day, 'UTC', start) - start).toBe(24 * 3_600_000)
    const month = { type: 'interval', value: 1, unit: 'month' } as const
    expect(iso(nextRun(month, 'UTC', at('2026-01-31T00:00:00Z')))).toBe('2026-02-28T00:00:00.000Z')
    const week = { type: 'interval', value: 2, unit: 'week' } as const
    expect(iso(nextRun(week, 'UTC', at('2026-01-01T00:00:00Z')))).toBe('2026-01-15T00:00:00.000Z')
    const year = { type: 'interval', value: 1, unit: 'year' } as const
    expect(iso(nextRun(year, 'UTC', at('2026-05-01T00:00:00Z')))).toBe('2027-05-01T00:00:00.000Z')
  })
})

describe('parseMonitorConfig', () => {
  it('parses the SDK shape with all keys', () => {
    const r = parseMonitorConfig({
      schedule: { type: 'crontab', value: '0  3 * * *' },
      checkin_margin: 5,
      max_runtime: 30,
      timezone: 'Europe/Berlin',
      failure_issue_threshold: 2,
      recovery_threshold: 1,
      owner: 'team:backend',
    })
    expect(r).toEqual({
      ok: true,
      config: {
        schedule: { type: 'crontab', value: '0 3 * * *' },
        timezone: 'Europe/Berlin',
        checkinMargin: 5,
        maxRuntime: 30,
        failureIssueThreshold: 2,
        recoveryThreshold: 1,
      },
    })
  })

  it('parses interval schedules, nulls as absent, and the legacy shapes', () => {
    expect(
      parseMonitorConfig({
        schedule: { type: 'interval', value: 10, unit: 'minute' },
        checkin_margin: null,
      }),
    ).toEqual({ ok: true, config: { schedule: { type: 'interval', value: 10, unit: 'minute' } } })
    expect(parseMonitorConfig({ schedule: '*/5 * * * *' })).toMatchObject({
      config: { schedule: { type: 'crontab', value: '*/5 * * * *' } },
    })
    expect(parseMonitorConfig({ schedule: [2, 'hour'] })).toMatchObject({
      config: { schedule: { type: 'interval', value: 2, unit: 'hour' } },
    })
  })

  it.each([
    ['no schedule', {}],
    ['a six-field cron', { schedule: { type: 'crontab', value: '0 * * * * *' } }],
    ['a three-field cron', { schedule: { type: 'crontab', value: '* * *' } }],
    ['an out-of-range field', { schedule: { type: 'crontab', value: '61 * * * *' } }],
    ['an impossible date', { schedule: { type: 'crontab', value: '0 0 30 2 *' } }],
    ['seconds as unit', { schedule: { type: 'interval', value: 5, unit: 'second' } }],
    ['a zero interval', { schedule: { type: 'interval', value: 0, unit: 'minute' } }],
    ['an unknown zone', { schedule: '* * * * *', timezone: 'Mars/Olympus' }],
    ['a negative margin', { schedule: '* * * * *', checkin_margin: -1 }],
    ['a runtime over 28 days', { schedule: '* * * * *', max_runtime: 40_321 }],
    ['not an object', 'daily'],
  ])('rejects %s', (_name, raw) => {
    const r = parseMonitorConfig(raw)
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.problem.length).toBeGreaterThan(0)
  })

  it('refuses an interval whose next run would not be a date (over 1000 years)', () => {
    const config = (value: number, unit: string) =>
      parseMonitorConfig({ schedule: { type: 'interval', value, unit } })
    expect(config(1000, 'year').ok).toBe(true)
    expect(config(11_000, 'month').ok).toBe(true)
    for (const [value, unit] of [
      [1001, 'year'],
      [1e9, 'year'],
      [999_999_999, 'minute'],
    ] as const) {
      const r = config(value, unit)
      expect(r.ok, `${value} ${unit}`).toBe(false)
      if (!r.ok) expect(r.problem).toMatch(/1000 years/)
    }
    // The largest accepted interval still gives a finite next run.
    const largest = { type: 'interval', value: 1000, unit: 'year' } as const
    expect(Number.isFinite(nextRun(largest, 'UTC', Date.UTC(2026, 0, 1)))).toBe(true)
  })

  it('explains cron problems', () => {
    expect(cronProblem('* * *')).toMatch(/5 fields/)
    expect(cronProblem('*/15 9-17 * * MON-FRI')).toBeUndefined()
  })
})
