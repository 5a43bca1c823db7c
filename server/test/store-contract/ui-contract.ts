import { describe, expect, it } from 'vitest'
import type { Store } from '../../src/store/types.ts'
import { row } from './contract.ts'
import { openWithProject } from './contract-setup.ts'

/** A fixed time to write at: the store must not depend on the wall clock. */
const T0 = Date.UTC(2026, 2, 1, 12, 0, 0)
const HOUR = 3_600_000

/**
 * Web UI sessions and the UI's reads (charts, filter choices, tab counts, event stepping) every
 * Store backend must show (run against SQLite in `sqlite/ui.test.ts`, against PostgreSQL when
 * that backend exists).
 */
export function uiStoreContract(name: string, open: () => Promise<Store>): void {
  const setup = () => openWithProject(open)

  describe(`web UI store contract: ${name}`, () => {
    it('finds a live session by the hash of its secret, with its user', async () => {
      const { store } = await setup()
      const user = await store.createUser('s@example.com', 'hash', false)
      const s = await store.createSession(user.id, 'h1', 'csrf-1', T0, T0 + HOUR)
      expect(s).toMatchObject({ userId: user.id, csrfToken: 'csrf-1', lastSeenAt: T0 })
      expect(await store.findSession('h1', T0 + 1)).toMatchObject({
        id: s.id,
        user: { id: user.id, email: 's@example.com', isAdmin: false },
      })
      expect(await store.findSession('h2', T0 + 1)).toBeUndefined()
      expect(await store.findSession('h1', T0 + HOUR)).toBeUndefined()
      await store.touchSession(s.id, T0 + 10, T0 + 2 * HOUR)
      expect(await store.findSession('h1', T0 + HOUR)).toMatchObject({ lastSeenAt: T0 + 10 })
      await store.deleteSession('h1')
      expect(await store.findSession('h1', T0 + 1)).toBeUndefined()
      await store.close()
    })

    it('deletes only expired sessions', async () => {
      const { store } = await setup()
      const user = await store.createUser('e@example.com', 'hash', true)
      await store.createSession(user.id, 'old', 'c1', T0, T0 + 10)
      await store.createSession(user.id, 'new', 'c2', T0, T0 + HOUR)
      expect(await store.deleteExpiredSessions(T0 + 10)).toBe(1)
      expect(await store.findSession('new', T0 + 11)).toBeDefined()
      await store.close()
    })

    it('counts the events of an issue per time bucket', async () => {
      const { store, project, key } = await setup()
      const at = [T0, T0 + 10, T0 + HOUR + 5, T0 + 3 * HOUR, T0 - HOUR]
      const [unit] = await store.write([
        { events: at.map((received) => row(project.id, key.id, 'h', { received })), outcomes: [] },
      ])
      const issueId = unit?.events[0]?.issueId ?? 0
      expect(await store.issueHistogram(issueId, T0, HOUR)).toEqual([
        { start: T0, count: 2 },
        { start: T0 + HOUR, count: 1 },
        { start: T0 + 3 * HOUR, count: 1 },
      ])
      await store.close()
    })

    it('lists filter choices from events and component keys, and counts issues by status', async () => {
      const { store, project, key } = await setup()
      await store.createKey(project.id, 'cli', 'cli', 'c'.repeat(32))
      await store.write([
        {
          events: [
            row(project.id, key.id, 'a', {
              environment: 'prod',
              release: 'r1',
              component: 'worker',
            }),
            row(project.id, key.id, 'b', {
              environment: 'staging',
              release: 'r2',
              component: null,
            }),
            row(project.id, key.id, 'c', { environment: null, release: null, component: null }),
          ],
          outcomes: [],
        },
      ])
      expect(await store.projectFacets(project.id)).toEqual({
        environments: ['prod', 'staging'],
        releases: ['r1', 'r2'],
        components: ['cli', 'worker'],
      })
      const { issues } = await store.listIssues(project.id, {}, { limit: 10 })
      await store.setIssueStatus(issues[0]?.id ?? 0, 'resolved')
      expect(await store.issueCountsByStatus(project.id)).toEqual({
        unresolved: 2,
        resolved: 1,
        ignored: 0,
      })
      await store.close()
    })

    it('steps to the newer, older, newest and oldest event of an issue', async () => {
      const { store, project, key } = await setup()
      const events = [0, 1, 2].map((i) => row(project.id, key.id, 'same', { received: T0 + i }))
      const other = row(project.id, key.id, 'other')
      await store.write([{ events: [...events, other], outcomes: [] }])
      const [first, middle, last] = events.map((e) => e.eventId)
      const issueId = (await store.getEvent(project.id, middle ?? ''))?.issueId ?? 0
      expect(await store.eventNeighbours(issueId, middle ?? '')).toEqual({
        newer: last,
        older: first,
        newest: last,
        oldest: first,
      })
      expect(await store.eventNeighbours(issueId, first ?? '')).toEqual({
        newer: middle,
        newest: last,
        oldest: first,
      })
      expect(await store.eventNeighbours(issueId, other.eventId)).toEqual({
        newest: last,
        oldest: first,
      })
      await store.close()
    })
  })
}
