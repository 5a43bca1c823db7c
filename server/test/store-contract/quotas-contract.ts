import { describe, expect, it } from 'vitest'
import { OUTCOME_TOTALS_LIMIT } from '../../src/store/queries/outcomes.ts'
import type { OutcomeDelta, Store } from '../../src/store/types.ts'
import { row } from './contract.ts'
import { openWithProject } from './contract-setup.ts'

const HOUR = 3_600_000
/** A fixed hour to write at: the store must not depend on the wall clock. */
const T0 = Date.UTC(2026, 0, 15, 10, 0, 0)

/**
 * Quota settings, the stored-id probe and the outcome reads every Store backend must show (run
 * against SQLite in `sqlite/quotas.test.ts`, against PostgreSQL in `postgres/contract.test.ts`).
 */
export function quotaContract(name: string, open: () => Promise<Store>): void {
  const setup = async () => {
    const { store, project, key } = await openWithProject(open)
    const delta = (over: Partial<OutcomeDelta>): OutcomeDelta => ({
      projectId: project.id,
      keyId: key.id,
      at: T0,
      outcome: 'accepted',
      reason: '',
      category: 'error',
      quantity: 1,
      ...over,
    })
    return { store, project, key, delta }
  }

  describe(`quota and outcome contract: ${name}`, () => {
    it('stores, replaces and removes a quota per project', async () => {
      const { store, project } = await setup()
      const other = await store.createProject('Q', `q-${Date.now()}`, 'e'.repeat(32))
      expect(await store.getQuota(project.id)).toBeNull()
      await store.setQuota(project.id, { events: 30, windowSeconds: 60 })
      await store.setQuota(project.id, { events: 10, windowSeconds: 3600 })
      expect(await store.getQuota(project.id)).toEqual({ events: 10, windowSeconds: 3600 })
      expect(await store.getQuota(other.project.id)).toBeNull()
      await store.setQuota(project.id, null)
      expect(await store.getQuota(project.id)).toBeNull()
      await store.close()
    })

    it('tells which event ids a project already stored', async () => {
      const { store, project, key } = await setup()
      const a = row(project.id, key.id, 'h')
      const b = row(project.id, key.id, 'h')
      await store.write([{ events: [a, b], outcomes: [] }])
      const other = await store.createProject('Q', `q-${Date.now()}`, 'd'.repeat(32))
      const found = await store.existingEventIds(project.id, [a.eventId, 'f'.repeat(32), b.eventId])
      expect([...found].sort()).toEqual([a.eventId, b.eventId].sort())
      expect(await store.existingEventIds(other.project.id, [a.eventId])).toEqual(new Set())
      expect(await store.existingEventIds(project.id, [])).toEqual(new Set())
      await store.close()
    })

    it('sums outcome counters per hour, by key, over whole-hour ranges', async () => {
      const { store, project, key, delta } = await setup()
      const k2 = await store.createKey(project.id, 'worker', 'worker', 'b'.repeat(32))
      await store.write([
        {
          events: [],
          outcomes: [
            delta({ quantity: 2 }),
            delta({ at: T0 + 59 * 60_000, quantity: 3 }),
            delta({ at: T0 + 2 * HOUR + 1, outcome: 'over_quota', reason: 'quota_exceeded' }),
            delta({ keyId: k2.id, outcome: 'client_discard', reason: 'send_error', quantity: 7 }),
            delta({ keyId: 0, outcome: 'rejected', reason: 'unknown_key' }),
          ],
        },
      ])
      const all = { since: T0, until: T0 + 3 * HOUR }
      expect(await store.outcomeTotalsBy(project.id, all)).toEqual([
        { outcome: 'accepted', reason: '', category: 'error', quantity: 5 },
        { outcome: 'client_discard', reason: 'send_error', category: 'error', quantity: 7 },
        { outcome: 'over_quota', reason: 'quota_exceeded', category: 'error', quantity: 1 },
        { outcome: 'rejected', reason: 'unknown_key', category: 'error', quantity: 1 },
      ])
      expect(await store.outcomeTotalsBy(project.id, { ...all, keyIds: [k2.id, 0] })).toEqual([
        { outcome: 'client_discard', reason: 'send_error', category: 'error', quantity: 7 },
        { outcome: 'rejected', reason: 'unknown_key', category: 'error', quantity: 1 },
      ])
      expect(await store.outcomeTotalsBy(project.id, { ...all, keyIds: [] })).toEqual([])
      // A range inside an hour reads the whole hour.
      expect(
        await store.outcomeTotalsBy(project.id, {
          since: T0 + 2 * HOUR + 30 * 60_000,
          until: T0 + 2 * HOUR + 31 * 60_000,
        }),
      ).toEqual([
        { outcome: 'over_quota', reason: 'quota_exceeded', category: 'error', quantity: 1 },
      ])
      expect(await store.outcomeHours(project.id, { ...all, keyIds: [key.id] })).toEqual([
        { hour: T0, outcome: 'accepted', category: 'error', quantity: 5 },
        { hour: T0 + 2 * HOUR, outcome: 'over_quota', category: 'error', quantity: 1 },
      ])
      await store.close()
    })

    it('answers at most OUTCOME_TOTALS_LIMIT totals, the largest, and hours summed over reasons', async () => {
      const { store, project, delta } = await setup()
      // Counters of made-up reasons, as ingest wrote them before it bounded the names: a row
      // each on the Outcomes page (175,000 of them in the audit).
      const outcomes = [
        ...Array.from({ length: OUTCOME_TOTALS_LIMIT + 50 }, (_, i) =>
          delta({ outcome: 'unsupported', reason: `t${String(i).padStart(5, '0')}` }),
        ),
        delta({ outcome: 'unsupported', reason: 'zz_big', category: 'log_item', quantity: 9 }),
      ]
      await store.write([{ events: [], outcomes }])
      const all = { since: T0, until: T0 + HOUR }
      const totals = await store.outcomeTotalsBy(project.id, all)
      expect(totals).toHaveLength(OUTCOME_TOTALS_LIMIT)
      expect(totals[0]?.reason).toBe('t00000')
      expect(totals[totals.length - 1]).toEqual({
        outcome: 'unsupported',
        reason: 'zz_big',
        category: 'log_item',
        quantity: 9,
      })
      expect(await store.outcomeHours(project.id, all)).toEqual([
        {
          hour: T0,
          outcome: 'unsupported',
          category: 'error',
          quantity: OUTCOME_TOTALS_LIMIT + 50,
        },
        { hour: T0, outcome: 'unsupported', category: 'log_item', quantity: 9 },
      ])
      await store.close()
    })
  })
}
