import { describe, expect, it } from 'vitest'
import { alertContract } from '../../../test/store-contract/alerts-contract.ts'
import { applyChange } from '../issue-rules.ts'
import type { Issue } from '../model.ts'
import { openSqliteStore } from './index.ts'

const issue = (over: Partial<Issue> = {}): Issue => ({
  id: 1,
  projectId: 1,
  title: 't',
  culprit: '',
  level: 'error',
  type: null,
  value: null,
  status: 'unresolved',
  firstSeen: 0,
  lastSeen: 0,
  timesSeen: 10,
  groupingVersion: 'v1',
  forReview: true,
  ignoreUntil: null,
  ignoreUntilSeen: null,
  users: 0,
  ...over,
})

describe('applyChange', () => {
  it('resolving or ignoring leaves For review', () => {
    expect(applyChange(issue(), { status: 'resolved' })).toMatchObject({ forReview: false })
    expect(applyChange(issue(), { status: 'ignored' })).toMatchObject({ forReview: false })
  })

  it('ignore_count is counted from the times seen so far', () => {
    expect(applyChange(issue(), { status: 'ignored', ignoreCount: 5 })).toEqual({
      status: 'ignored',
      forReview: false,
      ignoreUntil: null,
      ignoreUntilSeen: 15,
    })
  })

  it('any other status clears old ignore conditions', () => {
    const ignored = issue({ status: 'ignored', ignoreUntil: 99, ignoreUntilSeen: 20 })
    expect(applyChange(ignored, { status: 'unresolved' })).toEqual({
      status: 'unresolved',
      forReview: false,
      ignoreUntil: null,
      ignoreUntilSeen: null,
    })
  })

  it('setting unresolved on an unresolved issue keeps its queue place', () => {
    expect(applyChange(issue(), { status: 'unresolved' }).forReview).toBe(true)
    expect(applyChange(issue(), { status: 'unresolved', reviewed: true }).forReview).toBe(false)
  })

  it('reviewed:false only queues unresolved issues', () => {
    expect(applyChange(issue({ forReview: false }), { reviewed: false }).forReview).toBe(true)
    const resolved = issue({ status: 'resolved', forReview: false })
    expect(applyChange(resolved, { reviewed: false }).forReview).toBe(false)
  })
})

alertContract('sqlite', () => openSqliteStore(':memory:'))
