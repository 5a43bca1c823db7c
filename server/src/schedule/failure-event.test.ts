import { describe, expect, it } from 'vitest'
import { normalizeEvent } from '../event/normalize.ts'
import { groupEvent } from '../grouping/index.ts'
import { monitorSlug } from '../ingest/items/check-in.ts'
import { sessionCategory } from '../ingest/items/session.ts'
import { type FailedRun, failureEvent } from './failure-event.ts'

const run = (over: Partial<FailedRun> = {}): FailedRun => ({
  kind: 'missed',
  slug: 'nightly',
  environment: 'production',
  release: null,
  checkInId: 'a'.repeat(32),
  at: Date.UTC(2026, 0, 1, 3, 5),
  checkinMargin: 5,
  expectedTime: Date.UTC(2026, 0, 1, 3, 0),
  ...over,
})

const grouped = (f: FailedRun) =>
  groupEvent(normalizeEvent(failureEvent(f), { received: f.at / 1000 }))

describe('failureEvent', () => {
  it('groups every failure of one kind of one monitor together, with a stable title', () => {
    const a = grouped(run())
    const b = grouped(run({ checkInId: 'b'.repeat(32), expectedTime: Date.UTC(2026, 0, 2, 3) }))
    expect(a.hash).toBe(b.hash)
    expect(a.title).toBe(b.title)
    expect(a.title).toBe(
      'MonitorCheckInMissed: Cron monitor "nightly" missed a run: no check-in within 5 min of the scheduled time',
    )
    expect(a.culprit).toBe('nightly')
  })

  it('keeps kinds and monitors apart', () => {
    const hashes = new Set([
      grouped(run()).hash,
      grouped(run({ kind: 'timeout', maxRuntime: 30 })).hash,
      grouped(run({ kind: 'error' })).hash,
      grouped(run({ slug: 'hourly' })).hash,
    ])
    expect(hashes.size).toBe(4)
  })

  it('carries what the run was in contexts.monitor', () => {
    const e = failureEvent(
      run({ release: 'jobs@1', schedule: { type: 'crontab', value: '0 3 * * *' } }),
    )
    expect(e).toMatchObject({
      level: 'error',
      release: 'jobs@1',
      environment: 'production',
      fingerprint: ['cron', 'nightly', 'missed'],
      contexts: {
        monitor: {
          slug: 'nightly',
          failure: 'missed',
          expected_time: '2026-01-01T03:00:00.000Z',
          schedule: { type: 'crontab', value: '0 3 * * *' },
        },
      },
    })
  })
})

describe('monitorSlug', () => {
  it.each([
    ['nightly-report', 'nightly-report'],
    ['Nightly Report', 'nightly-report'],
    ['  backup_db!! ', 'backup_db'],
    ['Ünïcode jöb', 'unicode-job'],
    ['x'.repeat(60), 'x'.repeat(50)],
    ['!!!', ''],
  ])('%s -> %s', (raw, slug) => {
    expect(monitorSlug(raw)).toBe(slug)
  })
})

describe('sessionCategory', () => {
  it.each([
    ['ok', 0, 'healthy'],
    ['exited', 0, 'healthy'],
    ['exited', 2, 'errored'],
    ['ok', 1, 'errored'],
    ['errored', 0, 'errored'],
    ['crashed', 1, 'crashed'],
    ['abnormal', 0, 'abnormal'],
    ['unhandled', 1, 'unhandled'],
    ['something-new', 0, 'healthy'],
  ] as const)('%s with %d errors is %s', (status, errors, category) => {
    expect(sessionCategory(status, errors)).toBe(category)
  })
})
