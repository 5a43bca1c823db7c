import { describe, expect, it } from 'vitest'
import { foldOnIssue } from './grouping-upsert.ts'
import { triageOnEvent } from './issue-rules.ts'

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
