import { describe, expect, it } from 'vitest'
import { decideCheckIn } from './checkin-rules.ts'

const env = { status: 'active' as const, failures: 2 }
const at = (status: 'in_progress' | 'ok' | 'error', durationMs: number | null = null) => ({
  status,
  received: 10_000,
  durationMs,
})

describe('decideCheckIn', () => {
  it('opens a run with a timeout, or records a closing check-in as a run of its own', () => {
    expect(decideCheckIn(undefined, env, at('in_progress'), 500)).toMatchObject({
      kind: 'write',
      run: { kind: 'insert', status: 'in_progress', dateAdded: 10_000, timeoutAt: 10_500 },
      envStatus: 'active',
      failures: 2,
    })
    expect(decideCheckIn(undefined, env, at('error', 3000), 500)).toMatchObject({
      run: { kind: 'insert', dateAdded: 7000, timeoutAt: null, duration: 3000 },
      failed: true,
      envStatus: 'error',
      failures: 3,
    })
  })

  it('closes an open run; ok resets the failure count', () => {
    const open = { status: 'in_progress' as const, dateAdded: 4000, timeoutAt: 9000 }
    expect(decideCheckIn(open, env, at('ok'), 500)).toMatchObject({
      run: { kind: 'update', status: 'ok', timeoutAt: null, duration: 6000 },
      failed: false,
      envStatus: 'ok',
      failures: 0,
    })
  })

  it('refuses a second closing, ignores a late in_progress, and only times a timed-out run', () => {
    const done = { status: 'ok' as const, dateAdded: 0, timeoutAt: null }
    expect(decideCheckIn(done, env, at('error'), 500)).toEqual({
      kind: 'rejected',
      reason: 'checkin_already_completed',
    })
    expect(decideCheckIn(done, env, at('in_progress'), 500)).toEqual({ kind: 'unchanged' })
    const timedOut = { status: 'timeout' as const, dateAdded: 1000, timeoutAt: 2000 }
    expect(decideCheckIn(timedOut, env, at('ok'), 500)).toMatchObject({
      run: { kind: 'update', status: 'timeout', timeoutAt: 2000, duration: 9000 },
      envStatus: 'active',
    })
    expect(decideCheckIn(timedOut, env, at('in_progress'), 500)).toEqual({ kind: 'unchanged' })
  })
})
