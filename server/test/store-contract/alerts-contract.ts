import { describe, expect, it } from 'vitest'
import type { NewDelivery, Store } from '../../src/store/types.ts'
import { row } from './contract.ts'
import { openWithProject } from './contract-setup.ts'

/** A fixed time to write at: the store must not depend on the wall clock. */
const T0 = Date.UTC(2026, 2, 1, 12, 0, 0)
const MIN = 60_000

/**
 * Triage transitions, alert rules and the delivery outbox every Store backend must show (run
 * against SQLite in `sqlite/triage.test.ts`, against PostgreSQL in `postgres/contract.test.ts`).
 */
export function alertContract(name: string, open: () => Promise<Store>): void {
  const setup = async () => {
    const { store, project, key } = await openWithProject(open)
    const write = async (hash: string, received = T0) => {
      const [unit] = await store.write([
        { events: [row(project.id, key.id, hash, { received })], outcomes: [] },
      ])
      const r = unit?.events[0]
      if (r === undefined) throw new Error('nothing written')
      return r
    }
    return { store, project, key, write }
  }

  describe(`triage and alert contract: ${name}`, () => {
    it('new issues are For review; a regression and a met ignore condition reopen into it', async () => {
      const { store, project, write } = await setup()
      const a = await write('a')
      const b = await write('b')
      const c = await write('c')
      expect((await store.getIssue(a.issueId))?.forReview).toBe(true)
      expect(await store.countForReview(project.id)).toBe(3)

      await store.triageIssues(project.id, [a.issueId], { status: 'resolved' })
      await store.triageIssues(project.id, [b.issueId], { status: 'ignored', ignoreCount: 2 })
      await store.triageIssues(project.id, [c.issueId], {
        status: 'ignored',
        ignoreUntil: T0 + 10 * MIN,
      })
      expect(await store.countForReview(project.id)).toBe(0)

      expect(await write('a', T0 + MIN)).toMatchObject({ regressed: true })
      expect(await store.getIssue(a.issueId)).toMatchObject({
        status: 'unresolved',
        forReview: true,
      })
      await write('b', T0 + MIN)
      expect(await store.getIssue(b.issueId)).toMatchObject({ status: 'ignored' })
      expect(await write('b', T0 + 2 * MIN)).toMatchObject({ regressed: false })
      expect(await store.getIssue(b.issueId)).toMatchObject({
        status: 'unresolved',
        forReview: true,
        ignoreUntilSeen: null,
      })
      await write('c', T0 + 5 * MIN)
      expect(await store.getIssue(c.issueId)).toMatchObject({ status: 'ignored' })
      await write('c', T0 + 10 * MIN)
      expect(await store.getIssue(c.issueId)).toMatchObject({
        status: 'unresolved',
        forReview: true,
        ignoreUntil: null,
      })
      const review = await store.listIssues(project.id, { forReview: true }, { limit: 10 })
      expect(review.issues.map((i) => i.id).sort()).toEqual(
        [a.issueId, b.issueId, c.issueId].sort(),
      )
    })

    it('triage touches only the project’s issues; expiry ends elapsed time ignores', async () => {
      const { store, project, write } = await setup()
      const other = await setup()
      const mine = await write('m')
      const theirs = await other.write('t')
      const changed = await store.triageIssues(project.id, [mine.issueId, theirs.issueId], {
        status: 'ignored',
        ignoreUntil: T0 + MIN,
      })
      expect(changed.map((i) => i.id)).toEqual([mine.issueId])
      expect((await other.store.getIssue(theirs.issueId))?.status).toBe('unresolved')
      expect(await store.expireIgnores(T0)).toBe(0)
      expect(await store.expireIgnores(T0 + MIN)).toBe(1)
      expect(await store.getIssue(mine.issueId)).toMatchObject({
        status: 'unresolved',
        forReview: true,
      })
    })

    it('keeps rules, counts an issue’s events in a window, and writes each trigger once', async () => {
      const { store, project, write } = await setup()
      const rule = await store.createAlertRule(
        project.id,
        {
          name: 'r',
          conditions: [{ type: 'frequency', threshold: 2, windowMinutes: 5 }],
          channel: { type: 'email', to: ['a@example.com'] },
        },
        T0,
      )
      expect(await store.listAlertRules(project.id)).toEqual([rule])
      const first = await write('f', T0)
      await write('f', T0 + 4 * MIN)
      await write('f', T0 + 6 * MIN)
      expect(await store.countIssueEvents(first.issueId, T0 + MIN, 100)).toBe(2)
      expect(await store.countIssueEvents(first.issueId, T0, 100)).toBe(3)
      expect(await store.countIssueEvents(first.issueId, T0, 2)).toBe(2)

      const d: NewDelivery = {
        ruleId: rule.id,
        projectId: project.id,
        issueId: first.issueId,
        triggerKind: 'frequency',
        triggerId: 'w1',
        eventId: first.eventId,
        channel: rule.channel,
        message: '{"x":1}',
        at: T0,
      }
      const created = await store.enqueueDeliveries([d, { ...d, triggerId: 'w2', at: T0 + MIN }])
      expect(created.map((x) => [x.triggerId, x.status, x.ruleName])).toEqual([
        ['w1', 'pending', 'r'],
        ['w2', 'pending', 'r'],
      ])
      expect(await store.enqueueDeliveries([d])).toEqual([])
      expect(await store.lastDeliveryAt(rule.id, first.issueId, 'frequency')).toBe(T0 + MIN)
      expect(await store.lastDeliveryAt(rule.id, first.issueId, 'new_issue')).toBeNull()
    })

    it('leases due deliveries exclusively, fences attempts and schedules retries', async () => {
      const { store, project, write } = await setup()
      const rule = await store.createAlertRule(
        project.id,
        {
          name: 'r',
          conditions: [{ type: 'regression' }],
          channel: { type: 'webhook', url: 'http://127.0.0.1:9/h', format: 'json' },
        },
        T0,
      )
      const e = await write('d')
      const base = {
        ruleId: rule.id,
        projectId: project.id,
        issueId: e.issueId,
        triggerKind: 'regression' as const,
        eventId: null,
        channel: rule.channel,
        message: '{}',
      }
      await store.enqueueDeliveries([
        { ...base, triggerId: '1', at: T0 },
        { ...base, triggerId: '2', at: T0 + MIN },
      ])
      const [x] = await store.claimDeliveries('a', T0, 10 * MIN, 10)
      expect(x?.triggerId).toBe('1')
      expect(await store.claimDeliveries('b', T0, MIN, 10)).toEqual([])
      const [y] = await store.claimDeliveries('b', T0 + MIN, 5 * MIN, 10)
      expect(y?.triggerId).toBe('2')
      if (x === undefined || y === undefined) throw new Error('nothing claimed')

      // Only the holder records; a failure schedules the retry and frees the lease.
      expect(await store.finishAttempt(x.id, 'b', { ok: true, at: T0 })).toBe(false)
      const retryAt = T0 + 2 * MIN
      const failure = { ok: false as const, at: T0, error: 'HTTP 503', retryAt }
      expect(await store.finishAttempt(x.id, 'a', failure)).toBe(true)
      expect(await store.claimDeliveries('c', retryAt - 1, MIN, 10)).toEqual([])
      const [again] = await store.claimDeliveries('c', retryAt, MIN, 10)
      expect(again).toMatchObject({ id: x.id, attempts: 1, lastError: 'HTTP 503' })
      await store.finishAttempt(x.id, 'c', { ok: false, at: retryAt, error: 'gone', retryAt: null })

      // A lease that expired goes to the next worker; the first holder can no longer record.
      expect(await store.claimDeliveries('d', T0 + 6 * MIN - 1, MIN, 10)).toEqual([])
      const [taken] = await store.claimDeliveries('d', T0 + 6 * MIN, MIN, 10)
      expect(taken?.id).toBe(y.id)
      expect(await store.finishAttempt(y.id, 'b', { ok: true, at: T0 })).toBe(false)
      expect(await store.finishAttempt(y.id, 'd', { ok: true, at: T0 + 6 * MIN })).toBe(true)

      const log = await store.listDeliveries(project.id, {}, { limit: 1 })
      expect(log.deliveries.map((d) => [d.status, d.attempts, d.sentAt])).toEqual([
        ['sent', 1, T0 + 6 * MIN],
      ])
      const rest = await store.listDeliveries(project.id, {}, { limit: 5, cursor: log.next })
      expect(rest.deliveries.map((d) => [d.status, d.attempts, d.lastError])).toEqual([
        ['failed', 2, 'gone'],
      ])
      expect(rest.next).toBeUndefined()
      const failed = await store.listDeliveries(project.id, { status: 'failed' }, { limit: 5 })
      expect(failed.deliveries).toHaveLength(1)
    })

    it('deleting a rule cancels its pending deliveries and hides it', async () => {
      const { store, project, write } = await setup()
      const rule = await store.createAlertRule(
        project.id,
        {
          name: 'gone',
          conditions: [{ type: 'new_issue' }],
          channel: { type: 'webhook', url: 'http://127.0.0.1:9/h', format: 'slack' },
        },
        T0,
      )
      const e = await write('x')
      await store.enqueueDeliveries([
        {
          ruleId: rule.id,
          projectId: project.id,
          issueId: e.issueId,
          triggerKind: 'new_issue',
          triggerId: 'first',
          eventId: e.eventId,
          channel: rule.channel,
          message: '{}',
          at: T0,
        },
      ])
      expect(await store.deleteAlertRule(project.id + 1000, rule.id, T0)).toBe(false)
      expect(await store.deleteAlertRule(project.id, rule.id, T0 + MIN)).toBe(true)
      expect(await store.deleteAlertRule(project.id, rule.id, T0 + MIN)).toBe(false)
      expect(await store.listAlertRules(project.id)).toEqual([])
      expect(await store.claimDeliveries('w', T0 + 2 * MIN, MIN, 10)).toEqual([])
      const [d] = (await store.listDeliveries(project.id, {}, { limit: 5 })).deliveries
      expect(d).toMatchObject({ status: 'failed', lastError: 'rule deleted', ruleName: 'gone' })
    })
  })
}
