import { describe, expect, it } from 'vitest'
import type { Store } from '../../src/store/types.ts'
import { HOUR, openForHealthAndCrons, RANGE, T0 } from './health-cron-setup.ts'

/**
 * The release-health behaviour every Store backend must show (run against SQLite in
 * `sqlite/contract.test.ts` and `sqlite/writer-thread.test.ts`, against PostgreSQL in
 * `postgres/contract.test.ts`).
 */
export function releaseHealthContract(name: string, open: () => Promise<Store>): void {
  const setup = () => openForHealthAndCrons(open)
  /** One page of the release list, bigger than these tests write. */
  const PAGE = { limit: 100 }

  describe(`release health contract: ${name}`, () => {
    it('lists releases a page at a time, newest first, each with its own environments and users', async () => {
      const { store, project, update } = await setup()
      // 7 releases, r0 the newest; each has its own environment and user, r3 a second one.
      const sessions = Array.from({ length: 7 }, (_, i) =>
        update({
          sid: `s${i}`,
          did: `u${i}`,
          release: `r${i}`,
          environment: `e${i}`,
          started: T0 + (10 - i) * HOUR,
          timestamp: T0 + (10 - i) * HOUR,
        }),
      )
      sessions.push(
        update({
          sid: 'extra',
          did: 'u9',
          release: 'r3',
          environment: 'e9',
          started: T0 + 7 * HOUR,
          timestamp: T0 + 7 * HOUR,
        }),
      )
      await store.write([{ events: [], outcomes: [], sessions }])
      const seen: string[] = []
      let cursor: string | undefined
      let pages = 0
      do {
        const page = await store.listReleaseHealth(project.id, RANGE, { limit: 3, cursor })
        expect(page.releases.length).toBeLessThanOrEqual(3)
        for (const r of page.releases) {
          const n = r.release.slice(1)
          expect(r.environments).toEqual(n === '3' ? ['e3', 'e9'] : [`e${n}`])
          expect(r.counts.users.total).toBe(n === '3' ? 2 : 1)
        }
        seen.push(...page.releases.map((r) => r.release))
        cursor = page.next
        pages++
      } while (cursor !== undefined)
      expect(seen).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6'])
      expect(pages).toBe(3)
      expect(await store.releaseEnvironments(project.id, RANGE, 4)).toEqual([
        'e0',
        'e1',
        'e2',
        'e3',
      ])
      await store.close()
    })

    it('counts a session once, in its worst category, across units and commits', async () => {
      const { store, project, update } = await setup()
      await store.write([
        { events: [], outcomes: [], sessions: [update({ status: 'ok', did: 'u1' })] },
        { events: [], outcomes: [], sessions: [update({ status: 'ok', did: 'u1' })] },
      ])
      await store.write([
        {
          events: [],
          outcomes: [],
          sessions: [
            update({ status: 'crashed', category: 'crashed' }),
            update({ sid: 's2', did: 'u2' }),
          ],
        },
      ])
      await store.write([{ events: [], outcomes: [], sessions: [update({ status: 'ok' })] }])
      const [r] = (await store.listReleaseHealth(project.id, RANGE, PAGE)).releases
      expect(r?.counts.sessions).toEqual({
        total: 2,
        healthy: 1,
        errored: 0,
        unhandled: 0,
        abnormal: 0,
        crashed: 1,
      })
      expect(r?.counts.users).toMatchObject({ total: 2, crashed: 1, healthy: 1 })
      expect(r).toMatchObject({
        release: 'r@1',
        firstSeen: T0,
        lastSeen: T0,
        environments: ['prod'],
      })
      await store.close()
    })

    it('counts a new session once when its first updates arrive in concurrent writes', async () => {
      const { store, project, update } = await setup()
      // Several writes at once, each the first the store sees of the session: on PostgreSQL
      // they run on separate connections and none finds a row to lock.
      for (let round = 0; round < 5; round++) {
        const sid = `race-${round}`
        await Promise.all(
          Array.from({ length: 6 }, (_, i) =>
            store.write([
              {
                events: [],
                outcomes: [],
                sessions: [
                  i === 0
                    ? update({ sid, status: 'crashed', category: 'crashed' })
                    : update({ sid, status: 'ok' }),
                ],
              },
            ]),
          ),
        )
      }
      const [r] = (await store.listReleaseHealth(project.id, RANGE, PAGE)).releases
      expect(r?.counts.sessions).toMatchObject({ total: 5, crashed: 5, healthy: 0 })
      await store.close()
    })

    it('adds aggregate buckets and serves hourly series for a range and environment', async () => {
      const { store, project, update } = await setup()
      const counts = { healthy: 3, errored: 1, unhandled: 0, abnormal: 0, crashed: 1 }
      await store.write([
        {
          events: [],
          outcomes: [],
          sessionBuckets: [
            {
              projectId: project.id,
              release: 'r@1',
              environment: 'prod',
              started: T0 + HOUR,
              did: 'u9',
              counts,
            },
          ],
          sessions: [update({ environment: 'dev', status: 'abnormal', category: 'abnormal' })],
        },
      ])
      const all = await store.releaseHealthSeries(project.id, 'r@1', RANGE)
      expect(all?.totals.sessions).toMatchObject({ total: 6, crashed: 1, abnormal: 1, healthy: 3 })
      expect(all?.totals.users).toMatchObject({ total: 1, crashed: 1 })
      expect(all?.series.map((p) => [p.hour, p.counts.sessions.total])).toEqual([
        [T0, 1],
        [T0 + HOUR, 5],
      ])
      const prod = await store.releaseHealthSeries(project.id, 'r@1', {
        ...RANGE,
        environment: 'prod',
      })
      expect(prod?.totals.sessions.total).toBe(5)
      const late = await store.listReleaseHealth(
        project.id,
        { since: T0 + HOUR, until: RANGE.until },
        PAGE,
      )
      expect(late.releases[0]?.counts.sessions.total).toBe(5)
      expect(await store.releaseHealthSeries(project.id, 'other', RANGE)).toBeUndefined()
      await store.close()
    })
  })
}
