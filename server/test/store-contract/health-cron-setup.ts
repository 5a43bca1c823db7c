import type { CheckInToWrite } from '../../src/store/monitor-types.ts'
import type { SessionUpdate } from '../../src/store/release-health-types.ts'
import type { Store } from '../../src/store/types.ts'
import { openWithProject } from './contract-setup.ts'

/** An hour and a minute, ms. */
export const HOUR = 3_600_000
export const MINUTE = 60_000
/** A fixed hour to write at: the store must not depend on the wall clock. */
export const T0 = Date.UTC(2026, 0, 15, 10, 0, 0)
export const RANGE = { since: 0, until: T0 + 100 * HOUR }

/**
 * A store with one project, and builders of the session updates and check-ins the release
 * health and cron monitor contracts write (both start from the same defaults).
 */
export async function openForHealthAndCrons(open: () => Promise<Store>) {
  const { store, project, key } = await openWithProject(open)
  const update = (over: Partial<SessionUpdate>): SessionUpdate => ({
    projectId: project.id,
    sid: 's1',
    did: null,
    release: 'r@1',
    environment: 'prod',
    started: T0 + 5 * MINUTE,
    timestamp: T0 + 6 * MINUTE,
    status: 'exited',
    errors: 0,
    category: 'healthy',
    ...over,
  })
  const checkIn = (over: Partial<CheckInToWrite>): CheckInToWrite => ({
    projectId: project.id,
    keyId: key.id,
    received: T0,
    checkInId: 'c'.repeat(32),
    freshId: 'f'.repeat(32),
    slug: 'job',
    status: 'ok',
    environment: 'production',
    durationMs: null,
    release: null,
    traceId: null,
    config: {
      ok: true,
      config: { schedule: { type: 'crontab', value: '*/10 * * * *' }, checkinMargin: 1 },
    },
    ...over,
  })
  return { store, project, key, update, checkIn }
}
