import { describe, expect, it } from 'vitest'
import type { Store } from '../../src/store/types.ts'
import { row } from './contract.ts'
import { MINUTE, openForHealthAndCrons, RANGE, T0 } from './health-cron-setup.ts'

/**
 * The cron-monitor behaviour every Store backend must show (run against SQLite in
 * `sqlite/contract.test.ts` and `sqlite/writer-thread.test.ts`, against PostgreSQL in
 * `postgres/contract.test.ts`).
 */
export function monitorContract(name: string, open: () => Promise<Store>): void {
  const setup = () => openForHealthAndCrons(open)

  describe(`cron monitor contract: ${name}`, () => {
    it('creates a monitor from a check-in and computes its next run', async () => {
      const { store, project, checkIn } = await setup()
      await store.write([
        { events: [], outcomes: [], checkIns: [checkIn({ status: 'in_progress' })] },
      ])
      const m = await store.getMonitor(project.id, 'job')
      expect(m).toMatchObject({
        slug: 'job',
        schedule: { type: 'crontab', value: '*/10 * * * *' },
        timezone: 'UTC',
        checkinMargin: 1,
        maxRuntime: 30,
      })
      expect(m?.environments).toMatchObject([
        { environment: 'production', status: 'active', nextCheckIn: T0 + 10 * MINUTE },
      ])
      expect(await store.listMonitors(project.id)).toHaveLength(1)
      const { checkIns } = await store.listCheckIns(m?.id ?? 0, {}, { limit: 10 })
      expect(checkIns).toMatchObject([{ status: 'in_progress', timeoutAt: T0 + 30 * MINUTE }])
      await store.close()
    })

    it("writes an error run's event in the same commit and counts rejected check-ins", async () => {
      const { store, project, key, checkIn } = await setup()
      const failure = row(project.id, key.id, 'cron-hash')
      const [r] = await store.write([
        {
          events: [],
          outcomes: [],
          checkIns: [
            checkIn({ status: 'error', failure }),
            checkIn({ slug: 'unknown', config: undefined }),
          ],
        },
      ])
      expect(r?.events).toMatchObject([{ eventId: failure.eventId, issueCreated: true }])
      const totals = await store.outcomeTotals(project.id, 0, RANGE.until)
      expect(totals).toContainEqual(
        expect.objectContaining({
          outcome: 'rejected',
          reason: 'monitor_not_found',
          category: 'monitor',
        }),
      )
      const m = await store.getMonitor(project.id, 'job')
      const { checkIns } = await store.listCheckIns(m?.id ?? 0, {}, { limit: 10 })
      expect(checkIns).toMatchObject([{ status: 'error', eventId: failure.eventId }])
      await store.close()
    })

    it('records each missed run once and keeps its event pending until reported', async () => {
      const { store, project, checkIn } = await setup()
      await store.write([{ events: [], outcomes: [], checkIns: [checkIn({})] }])
      // Expected at T0+10, T0+20 (deadlines +1 min); at T0+21 both are missed.
      expect(await store.recordMonitorFailures(T0 + 21 * MINUTE, 100)).toBe(2)
      expect(await store.recordMonitorFailures(T0 + 21 * MINUTE, 100)).toBe(0)
      const pending = await store.pendingMonitorFailures(10)
      expect(pending.map((f) => [f.kind, f.expectedTime, f.projectId])).toEqual([
        ['missed', T0 + 10 * MINUTE, project.id],
        ['missed', T0 + 20 * MINUTE, project.id],
      ])
      await store.markMonitorFailuresReported(pending.map((f) => f.runId))
      expect(await store.pendingMonitorFailures(10)).toEqual([])
      const m = await store.getMonitor(project.id, 'job')
      expect(m?.environments[0]).toMatchObject({
        status: 'missed',
        failures: 2,
        nextCheckIn: T0 + 30 * MINUTE,
      })
      await store.close()
    })

    it('records the expected run as missed when its check-in comes after the deadline', async () => {
      const { store, project, checkIn } = await setup()
      await store.write([{ events: [], outcomes: [], checkIns: [checkIn({})] }])
      // Expected T0+10, deadline T0+11; the job checks in at T0+12 before any clock tick.
      const late = checkIn({ checkInId: 'd'.repeat(32), received: T0 + 12 * MINUTE })
      await store.write([{ events: [], outcomes: [], checkIns: [late] }])
      const m = await store.getMonitor(project.id, 'job')
      const { checkIns } = await store.listCheckIns(m?.id ?? 0, {}, { limit: 10 })
      expect(checkIns.map((c) => [c.status, c.expectedTime])).toEqual([
        ['ok', T0 + 20 * MINUTE],
        ['missed', T0 + 10 * MINUTE],
        ['ok', null],
      ])
      expect(m?.environments[0]).toMatchObject({
        status: 'ok',
        failures: 0,
        nextCheckIn: T0 + 20 * MINUTE,
      })
      expect((await store.pendingMonitorFailures(10)).map((f) => f.expectedTime)).toEqual([
        T0 + 10 * MINUTE,
      ])
      expect(await store.recordMonitorFailures(T0 + 12 * MINUTE, 100)).toBe(0)
      await store.close()
    })

    it('gives the clock lease to one holder at a time', async () => {
      const { store } = await setup()
      expect(await store.acquireLease('clock', 'a', T0, 30_000)).toBe(true)
      expect(await store.acquireLease('clock', 'b', T0 + 1000, 30_000)).toBe(false)
      expect(await store.acquireLease('clock', 'a', T0 + 20_000, 30_000)).toBe(true)
      expect(await store.acquireLease('clock', 'b', T0 + 49_000, 30_000)).toBe(false)
      expect(await store.acquireLease('clock', 'b', T0 + 50_000, 30_000)).toBe(true)
      await store.noteTick('clock', 'b', T0 + 5)
      await store.noteTick('clock', 'b', T0 + 1)
      await store.noteTick('clock', 'a', T0 + 9)
      expect(await store.getLease('clock')).toMatchObject({ holder: 'b', lastTick: T0 + 5 })
      await store.releaseLease('clock', 'b')
      expect(await store.acquireLease('clock', 'a', T0 + 51_000, 30_000)).toBe(true)
      await store.close()
    })
  })
}
