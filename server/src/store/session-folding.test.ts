import { describe, expect, it } from 'vitest'
import type { SessionUpdate } from './release-health-types.ts'
import { foldSession } from './session-folding.ts'

const HOUR = 3_600_000
const update = (over: Partial<SessionUpdate> = {}): SessionUpdate => ({
  projectId: 1,
  sid: 's',
  did: null,
  release: 'r@1',
  environment: 'prod',
  started: 5 * HOUR + 10,
  timestamp: 5 * HOUR + 20,
  status: 'ok',
  errors: 0,
  category: 'healthy',
  ...over,
})

describe('foldSession', () => {
  it('counts a new session once, in the hour it started', () => {
    const f = foldSession(undefined, update())
    expect(f).toMatchObject({ newSessions: 1, moved: { from: null, to: 0 } })
    expect(f.row.hour).toBe(5 * HOUR)
  })

  it('moves a session only to a worse category, never back, whatever the order', () => {
    const first = foldSession(undefined, update()).row
    const crashed = foldSession(
      first,
      update({ category: 'crashed', status: 'crashed', errors: 1 }),
    )
    expect(crashed).toMatchObject({ newSessions: 0, moved: { from: 0, to: 4 } })
    const late = foldSession(crashed.row, update({ status: 'exited', timestamp: 5 * HOUR }))
    expect(late.moved).toBeNull()
    expect(late.row).toMatchObject({ category: 4, status: 'crashed', errors: 1 })
    expect(late.row.updated).toBe(crashed.row.updated)
  })

  it('keeps the first user id a session reported', () => {
    const first = foldSession(undefined, update({ did: 'u1' })).row
    expect(foldSession(first, update({ did: 'u2' })).row.did).toBe('u1')
    const anon = foldSession(undefined, update()).row
    expect(foldSession(anon, update({ did: 'u3' })).row.did).toBe('u3')
  })
})
