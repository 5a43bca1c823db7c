import { describe, expect, it } from 'vitest'
import { type IssueOnEvent, triageOnEvent } from './issue-rules.ts'

const issue = (over: Partial<IssueOnEvent> = {}): IssueOnEvent => ({
  status: 'unresolved',
  forReview: false,
  ignoreUntil: null,
  ignoreUntilSeen: null,
  timesSeen: 4,
  ...over,
})

describe('triageOnEvent', () => {
  it('leaves an unresolved issue as it is', () => {
    expect(triageOnEvent(issue(), 1000)).toEqual({
      status: 'unresolved',
      forReview: false,
      ignoreUntil: null,
      ignoreUntilSeen: null,
      regressed: false,
    })
  })

  it('regresses a resolved issue into For review', () => {
    expect(triageOnEvent(issue({ status: 'resolved' }), 1000)).toEqual({
      status: 'unresolved',
      forReview: true,
      ignoreUntil: null,
      ignoreUntilSeen: null,
      regressed: true,
    })
  })

  it('brings an ignored issue back once its time passed or its count is reached, not before', () => {
    const until = issue({ status: 'ignored', ignoreUntil: 2000 })
    expect(triageOnEvent(until, 1999).status).toBe('ignored')
    expect(triageOnEvent(until, 2000)).toMatchObject({ status: 'unresolved', regressed: false })
    const count = issue({ status: 'ignored', ignoreUntilSeen: 6 })
    expect(triageOnEvent(count, 0).status).toBe('ignored')
    expect(triageOnEvent({ ...count, timesSeen: 5 }, 0)).toMatchObject({
      status: 'unresolved',
      forReview: true,
      ignoreUntilSeen: null,
    })
    expect(triageOnEvent(issue({ status: 'ignored' }), 10 ** 15).status).toBe('ignored')
  })
})
