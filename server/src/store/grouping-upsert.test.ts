import { describe, expect, it } from 'vitest'
import {
  type FoundIssue,
  foldOnIssue,
  hashRuns,
  type IssueTouch,
  type SyncGroupingIo,
  upsertGroup,
  upsertGroupSync,
} from './grouping-upsert.ts'
import { triageOnEvent } from './issue-rules.ts'
import type { EventToWrite } from './model.ts'

const ev = (eventId: string, hash: string, received = 1, projectId = 1): EventToWrite => ({
  projectId,
  keyId: 1,
  eventId,
  timestamp: received,
  received,
  level: 'error',
  title: `t-${eventId}`,
  culprit: 'c',
  type: 'Error',
  value: 'v',
  release: null,
  environment: null,
  component: null,
  hash,
  groupingVersion: 'v1',
  payload: '{}',
})

/**
 * The storage steps over a map: what the grouping rule asked for is recorded, and `claimedBy`
 * makes `createIssue` lose the race to another writer's issue, as on PostgreSQL.
 */
function memoryIo(issues: Map<string, FoundIssue>, claimedBy?: FoundIssue) {
  const calls: string[] = []
  const touches: IssueTouch[] = []
  let nextId = 100
  const io: SyncGroupingIo = {
    findHash: (e, hash) => {
      calls.push(hash === e.hash ? 'find' : 'find previous')
      return issues.get(hash)
    },
    claimHash: (e, issueId) => {
      calls.push('claim')
      if (claimedBy !== undefined) {
        issues.set(e.hash, claimedBy)
        return false
      }
      const found = [...issues.values()].find((i) => i.issueId === issueId)
      if (found !== undefined) issues.set(e.hash, found)
      return true
    },
    createIssue: (e) => {
      calls.push('create')
      if (claimedBy !== undefined) {
        issues.set(e.hash, claimedBy)
        return undefined
      }
      const id = nextId++
      issues.set(e.hash, {
        issueId: id,
        status: 'unresolved',
        forReview: true,
        ignoreUntil: null,
        ignoreUntilSeen: null,
        timesSeen: 1,
      })
      return id
    },
    touchIssue: (t) => {
      calls.push('touch')
      touches.push(t)
    },
  }
  return { io, calls, touches }
}

describe('upsertGroup', () => {
  it('creates the issue with the first event of a new hash and folds the rest into one touch', () => {
    const m = memoryIo(new Map())
    const r = upsertGroupSync(m.io, [ev('a', 'h', 5), ev('b', 'h', 9), ev('c', 'h', 7)])
    expect(r).toEqual([
      { issueId: 100, issueCreated: true, regressed: false },
      { issueId: 100, issueCreated: false, regressed: false },
      { issueId: 100, issueCreated: false, regressed: false },
    ])
    expect(m.calls).toEqual(['find', 'create', 'touch'])
    expect(m.touches[0]).toMatchObject({ issueId: 100, count: 2, lastSeen: 9 })
    expect(m.touches[0]?.last.eventId).toBe('c')
    expect(m.touches[0]?.state.status).toBe('unresolved')
  })

  it('joins the winner when the hash was claimed by another writer first', async () => {
    const winner: FoundIssue = {
      issueId: 7,
      status: 'resolved',
      forReview: false,
      ignoreUntil: null,
      ignoreUntilSeen: null,
      timesSeen: 3,
    }
    const m = memoryIo(new Map(), winner)
    const events = [ev('a', 'h'), ev('b', 'h')]
    const r = upsertGroupSync(m.io, events)
    expect(m.calls).toEqual(['find', 'create', 'find', 'touch'])
    // Joining a resolved issue is a regression for the first event only.
    expect(r).toEqual([
      { issueId: 7, issueCreated: false, regressed: true },
      { issueId: 7, issueCreated: false, regressed: false },
    ])
    expect(m.touches[0]).toMatchObject({ issueId: 7, count: 2 })
    // The awaited runner takes the same steps to the same result.
    const a = memoryIo(new Map(), winner)
    const asyncR = await upsertGroup(
      {
        findHash: async (e, hash) => a.io.findHash(e, hash),
        createIssue: async (e) => a.io.createIssue(e),
        claimHash: async (e, issueId) => a.io.claimHash(e, issueId),
        touchIssue: async (t) => a.io.touchIssue(t),
      },
      events,
    )
    expect(asyncR).toEqual(r)
    expect(a.calls).toEqual(m.calls)
  })
})

describe('upsertGroup with a previous hash', () => {
  const stored: FoundIssue = {
    issueId: 7,
    status: 'unresolved',
    forReview: false,
    ignoreUntil: null,
    ignoreUntilSeen: null,
    timesSeen: 3,
  }
  const withPrevious = (id: string, previousHash: string) => ({ ...ev(id, 'new'), previousHash })

  it("joins the previous hash's issue and claims the new hash for it", () => {
    const issues = new Map([['old', stored]])
    const m = memoryIo(issues)
    const r = upsertGroupSync(m.io, [withPrevious('a', 'old'), withPrevious('b', 'old')])
    expect(m.calls).toEqual(['find', 'find previous', 'claim', 'touch'])
    expect(r.map((x) => [x.issueId, x.issueCreated])).toEqual([
      [7, false],
      [7, false],
    ])
    expect(m.touches[0]).toMatchObject({ issueId: 7, count: 2 })
    expect(issues.get('new')?.issueId).toBe(7)
    // The next event finds the new hash itself.
    const again = memoryIo(issues)
    upsertGroupSync(again.io, [withPrevious('c', 'old')])
    expect(again.calls).toEqual(['find', 'touch'])
  })

  it('creates an issue when the previous hash has none either', () => {
    const m = memoryIo(new Map())
    const r = upsertGroupSync(m.io, [withPrevious('a', 'old')])
    expect(m.calls).toEqual(['find', 'find previous', 'create'])
    expect(r[0]?.issueCreated).toBe(true)
  })

  it('joins the winner when another writer claimed the new hash first', () => {
    const winner = { ...stored, issueId: 9 }
    const m = memoryIo(new Map([['old', stored]]), winner)
    const r = upsertGroupSync(m.io, [withPrevious('a', 'old')])
    expect(m.calls).toEqual(['find', 'find previous', 'claim', 'find', 'touch'])
    expect(r[0]?.issueId).toBe(9)
  })
})

describe('hashRuns', () => {
  it('leaves out stored events and later copies of an id, and groups the rest by hash', () => {
    const events = [
      ev('a', 'y'),
      ev('b', 'x'),
      ev('a', 'y'), // a second copy in the group: a duplicate
      ev('s', 'x'), // stored before
      ev('c', 'y'),
      ev('a', 'y', 1, 2), // the same id in another project is another event
    ]
    const stored = (e: EventToWrite) => e.eventId === 's'
    expect(hashRuns(events, stored)).toEqual([[0, 4], [1], [5]])
    expect(hashRuns(events, stored, true)).toEqual([[1], [0, 4], [5]])
  })
})

describe('foldOnIssue', () => {
  it('gives what writing the events one by one gives', () => {
    const issue = {
      status: 'ignored' as const,
      forReview: false,
      ignoreUntil: null,
      ignoreUntilSeen: 12,
      timesSeen: 10,
    }
    const { state, regressed } = foldOnIssue(issue, [1, 2, 3])
    // The second event is the 12th: the ignore condition is met there.
    expect(state).toEqual({
      status: 'unresolved',
      forReview: true,
      ignoreUntil: null,
      ignoreUntilSeen: null,
      timesSeen: 13,
    })
    expect(regressed).toEqual([false, false, false])
    const resolved = foldOnIssue({ ...issue, status: 'resolved', ignoreUntilSeen: null }, [5, 6])
    expect(resolved.regressed).toEqual([true, false])
    expect(triageOnEvent({ ...issue, timesSeen: 10 }, 1).status).toBe('ignored')
  })
})
