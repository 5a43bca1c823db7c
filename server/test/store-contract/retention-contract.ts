import { describe, expect, it } from 'vitest'
import { sweepRetention } from '../../src/store/retention.ts'
import type { Store } from '../../src/store/types.ts'
import { row } from './contract.ts'
import { openWithProject } from './contract-setup.ts'

const DAY = 86_400_000
const HOUR = 3_600_000
const NOW = Date.UTC(2026, 5, 1)

/** Retention: what every Store backend must remove, and what it must keep. */
export function retentionContract(name: string, open: () => Promise<Store>): void {
  describe(`retention contract: ${name}`, () => {
    it('removes old events, sessions and outcomes in batches and keeps issue counts', async () => {
      const { store, project, key } = await openWithProject(open)
      const old = NOW - 100 * DAY
      const recent = NOW - DAY
      const events = [
        ...Array.from({ length: 7 }, () =>
          row(project.id, key.id, 'h', { received: old, environment: 'legacy' }),
        ),
        row(project.id, key.id, 'h', { received: recent }),
      ]
      const session = (sid: string, at: number) => ({
        projectId: project.id,
        sid,
        did: null,
        release: 'r@1',
        environment: 'prod',
        started: at,
        timestamp: at,
        status: 'exited' as const,
        errors: 0,
        category: 'healthy' as const,
      })
      const outcome = (at: number) => ({
        projectId: project.id,
        keyId: key.id,
        at,
        outcome: 'rejected',
        reason: 'invalid_json',
        category: 'error',
        quantity: 1,
      })
      const [result] = await store.write([
        {
          events,
          outcomes: [outcome(old), outcome(recent)],
          sessions: [session('old', old), session('new', recent)],
        },
      ])
      const issueId = result?.events[0]?.issueId ?? 0
      const chart = async () =>
        (await store.issueHistogram(issueId, old - (old % HOUR) - DAY, HOUR)).reduce(
          (n, b) => n + b.count,
          0,
        )
      expect(await chart()).toBe(8)
      // A batch of 3 makes the sweep loop several times.
      const removed = await sweepRetention(store, 90, NOW, { batch: 3, dutyCycle: 1 })
      expect(removed.events).toBe(7)
      expect(removed.outcomes).toBeGreaterThanOrEqual(1)
      expect(removed.sessions).toBeGreaterThanOrEqual(1)
      const left = await store.listIssueEvents(issueId, { limit: 50 })
      expect(left.events.map((e) => e.received)).toEqual([recent])
      expect((await store.getIssue(issueId))?.timesSeen).toBe(8)
      // The issue's chart counts the events kept: expired hours show nothing on either backend.
      expect(await chart()).toBe(1)
      // What the issue has seen stays with it, like its count: its expired events' environment
      // still filters the issue list and is still a choice (docs/postgresql.md "Retention").
      const legacy = await store.listIssues(project.id, { environment: 'legacy' }, { limit: 10 })
      expect(legacy.issues.map((i) => i.id)).toEqual([issueId])
      expect((await store.projectFacets(project.id)).environments).toContain('legacy')
      const totals = await store.outcomeTotals(project.id, 0, NOW + HOUR)
      expect(totals.filter((t) => t.outcome === 'rejected')).toEqual([
        { outcome: 'rejected', reason: 'invalid_json', category: 'error', quantity: 1 },
      ])
      const health = await store.releaseHealthSeries(project.id, 'r@1', {
        since: 0,
        until: NOW + HOUR,
      })
      expect(health?.totals.sessions.total).toBe(1)
      await store.close()
    })
  })
}
