import { describe, expect, it } from 'vitest'
import type { EventToWrite, Store } from '../../src/store/types.ts'

let seq = 0

/** An event row for store tests; `hash` decides the issue. */
export function row(
  projectId: number,
  keyId: number,
  hash: string,
  over: Partial<EventToWrite> = {},
): EventToWrite {
  seq++
  return {
    projectId,
    keyId,
    eventId: seq.toString(16).padStart(32, '0'),
    timestamp: 1_790_000_000_000 + seq,
    received: 1_790_000_000_000 + seq,
    level: 'error',
    title: `title ${hash}`,
    culprit: 'app.js in run',
    type: 'Error',
    value: 'boom',
    release: 'r@1',
    environment: 'production',
    component: null,
    hash,
    groupingVersion: 'v1',
    payload: '{}',
    ...over,
  }
}

/**
 * The behaviour every Store backend must show (Hono's shared case-suite idea): run it against
 * SQLite here and against PostgreSQL when that backend exists.
 */
export function storeContract(name: string, open: () => Promise<Store>): void {
  describe(`store contract: ${name}`, () => {
    const setup = async () => {
      const store = await open()
      const { project, key } = await store.createProject(
        'P',
        `p-${Math.random().toString(36).slice(2)}`,
        'a'.repeat(32),
      )
      return { store, project, key }
    }

    it('creates projects with a default key found by its public key', async () => {
      const { store, project, key } = await setup()
      expect(key.component).toBeNull()
      expect(await store.findKey('a'.repeat(32))).toMatchObject({
        id: key.id,
        projectId: project.id,
      })
      expect(await store.getProject(project.id)).toMatchObject({ name: 'P' })
      await store.close()
    })

    it('groups events by hash, counts them, and is idempotent on (project, event_id)', async () => {
      const { store, project, key } = await setup()
      const a = row(project.id, key.id, 'h1')
      const b = row(project.id, key.id, 'h1')
      const c = row(project.id, key.id, 'h2')
      const [r1, r2] = await store.write([
        { events: [a, b], outcomes: [] },
        { events: [c, { ...a }], outcomes: [] },
      ])
      expect(r1?.events.map((e) => [e.duplicate, e.issueCreated])).toEqual([
        [false, true],
        [false, false],
      ])
      expect(r2?.events.map((e) => e.duplicate)).toEqual([false, true])
      // The project of an issue (access checks), and none for an id no issue has.
      const issueId = r1?.events[0]?.issueId ?? 0
      expect(await store.issueProjectId(issueId)).toBe(project.id)
      expect(await store.issueProjectId(issueId + 1000)).toBeUndefined()
      const { issues } = await store.listIssues(project.id, {}, { limit: 10 })
      expect(issues.map((i) => [i.title, i.timesSeen])).toEqual([
        ['title h2', 1],
        ['title h1', 2],
      ])
      const totals = await store.outcomeTotals(project.id, 0, Number.MAX_SAFE_INTEGER)
      expect(totals).toEqual(
        expect.arrayContaining([
          { outcome: 'accepted', reason: '', category: 'error', quantity: 3 },
          { outcome: 'duplicate', reason: '', category: 'error', quantity: 1 },
        ]),
      )
      await store.close()
    })

    it("keeps an issue's title, culprit, level and metadata at its latest event's", async () => {
      const { store, project, key } = await setup()
      const first = { title: 'Error: user 41', type: 'Error', value: 'user 41', level: 'error' }
      const later = {
        title: 'TypeError: user 42',
        culprit: 'cart.js in pay',
        type: 'TypeError',
        value: 'user 42',
        level: 'warning',
      }
      await store.write([{ events: [row(project.id, key.id, 'm', first)], outcomes: [] }])
      await store.write([{ events: [row(project.id, key.id, 'm', later)], outcomes: [] }])
      const { issues } = await store.listIssues(project.id, {}, { limit: 10 })
      expect(issues).toHaveLength(1)
      const issue = issues[0]
      expect(issue && [issue.title, issue.culprit, issue.level, issue.type, issue.value]).toEqual([
        'TypeError: user 42',
        'cart.js in pay',
        'warning',
        'TypeError',
        'user 42',
      ])
      await store.close()
    })

    it("joins a new hash to the issue of the event's previous hash, then finds it by the new one", async () => {
      const { store, project, key } = await setup()
      // Stored before the grouping change: the issue knows only the old hash.
      const [before] = await store.write([
        { events: [row(project.id, key.id, 'old', { groupingVersion: 'v1' })], outcomes: [] },
      ])
      const issueId = before?.events[0]?.issueId ?? 0
      await store.setIssueStatus(issueId, 'resolved')
      const next = () =>
        row(project.id, key.id, 'new', { previousHash: 'old', groupingVersion: 'v2' })
      const [after] = await store.write([{ events: [next(), next()], outcomes: [] }])
      expect(after?.events.map((e) => [e.issueId, e.issueCreated, e.regressed])).toEqual([
        [issueId, false, true],
        [issueId, false, false],
      ])
      // The new hash is the issue's now: found without the previous one.
      const [later] = await store.write([
        { events: [row(project.id, key.id, 'new')], outcomes: [] },
      ])
      expect(later?.events[0]).toMatchObject({ issueId, issueCreated: false })
      // A previous hash no issue has: a new issue, as without one.
      const [fresh] = await store.write([
        { events: [row(project.id, key.id, 'other', { previousHash: 'none' })], outcomes: [] },
      ])
      expect(fresh?.events[0]).toMatchObject({ issueCreated: true })
      expect((await store.getIssue(issueId))?.timesSeen).toBe(4)
      // A previous hash the event's own version recorded is not followed: v2 gives an event
      // without source lines v1's hash, which must not pull other errors of its function in.
      const [same] = await store.write([
        { events: [row(project.id, key.id, 'plain', { groupingVersion: 'v2' })], outcomes: [] },
      ])
      const [split] = await store.write([
        {
          events: [
            row(project.id, key.id, 'lined', { previousHash: 'plain', groupingVersion: 'v2' }),
          ],
          outcomes: [],
        },
      ])
      expect(split?.events[0]).toMatchObject({ issueCreated: true })
      expect(split?.events[0]?.issueId).not.toBe(same?.events[0]?.issueId)
      await store.close()
    })

    it('reopens a resolved issue as a regression', async () => {
      const { store, project, key } = await setup()
      const [first] = await store.write([
        { events: [row(project.id, key.id, 'reg')], outcomes: [] },
      ])
      const issueId = first?.events[0]?.issueId ?? 0
      await store.setIssueStatus(issueId, 'resolved')
      const [again] = await store.write([
        { events: [row(project.id, key.id, 'reg')], outcomes: [] },
      ])
      expect(again?.events[0]).toMatchObject({ issueId, regressed: true })
      expect((await store.getIssue(issueId))?.status).toBe('unresolved')
      await store.close()
    })

    it('pages the issue list with a cursor and filters by component and environment', async () => {
      const { store, project, key } = await setup()
      const events = Array.from({ length: 25 }, (_, i) =>
        row(project.id, key.id, `page-${i}`, {
          component: i % 5 === 0 ? 'worker' : null,
          environment: i % 2 === 0 ? 'staging' : 'production',
        }),
      )
      await store.write([{ events, outcomes: [] }])
      const seen = new Set<number>()
      let cursor: string | undefined
      for (let i = 0; i < 3; i++) {
        const page = await store.listIssues(project.id, {}, { limit: 10, cursor })
        for (const issue of page.issues) seen.add(issue.id)
        cursor = page.next
      }
      expect(seen.size).toBe(25)
      expect(cursor).toBeUndefined()
      const workers = await store.listIssues(project.id, { component: 'worker' }, { limit: 100 })
      expect(workers.issues).toHaveLength(5)
      const staging = await store.listIssues(project.id, { environment: 'staging' }, { limit: 100 })
      expect(staging.issues).toHaveLength(13)
      await store.close()
    })

    it('filters issues by text in title or culprit, ignoring case, wildcards literal', async () => {
      const { store, project, key } = await setup()
      await store.write([
        {
          events: [
            row(project.id, key.id, 'a', { title: 'Disk 100% full', culprit: 'disk.js' }),
            row(project.id, key.id, 'b', { title: 'Disk 1000 full', culprit: 'Worker_Pool' }),
          ],
          outcomes: [],
        },
      ])
      const titles = async (query: string) =>
        (await store.listIssues(project.id, { query }, { limit: 10 })).issues.map((i) => i.title)
      expect(await titles('DISK 100%')).toEqual(['Disk 100% full'])
      expect(await titles('worker_pool')).toEqual(['Disk 1000 full'])
      expect(await titles('worker%pool')).toEqual([])
      expect((await titles('disk')).sort()).toEqual(['Disk 100% full', 'Disk 1000 full'])
      await store.close()
    })

    it('sums outcome counters per hour range', async () => {
      const { store, project, key } = await setup()
      const hour = 3_600_000
      const at = 1_790_000_000_000
      const o = {
        projectId: project.id,
        keyId: key.id,
        outcome: 'unsupported',
        reason: 'transaction',
        category: 'transaction',
      }
      await store.write([
        {
          events: [],
          outcomes: [
            { ...o, at, quantity: 2 },
            { ...o, at: at + 10, quantity: 3 },
            { ...o, at: at + 5 * hour, quantity: 7 },
          ],
        },
      ])
      const start = Math.floor(at / hour) * hour
      expect(await store.outcomeTotals(project.id, start, start + hour)).toEqual(
        [{ ...o, quantity: 5, projectId: undefined, keyId: undefined }].map(
          ({ outcome, reason, category, quantity }) => ({ outcome, reason, category, quantity }),
        ),
      )
      expect((await store.outcomeTotals(project.id, start, start + 6 * hour))[0]?.quantity).toBe(12)
      await store.close()
    })
  })
}
