import type { CheckInToWrite, MonitorEnvStatus, RunStatus } from './monitor-types.ts'

/** The run a check-in refers to, as stored (undefined: none yet). */
export interface StoredRun {
  status: RunStatus
  dateAdded: number
  timeoutAt: number | null
}

/** What happens to the run row. */
export type RunWrite =
  | {
      kind: 'insert'
      status: RunStatus
      dateAdded: number
      timeoutAt: number | null
      duration: number | null
    }
  | { kind: 'update'; status: RunStatus; timeoutAt: number | null; duration: number | null }

/** The decision for one check-in: refused, accepted without change, or written. */
export type CheckInDecision =
  | { kind: 'rejected'; reason: 'checkin_already_completed' }
  | { kind: 'unchanged' }
  | {
      kind: 'write'
      run: RunWrite
      /** The run failed now: counts towards the failure-issue threshold. */
      failed: boolean
      envStatus: MonitorEnvStatus
      failures: number
    }

/**
 * The check-in state machine, decided in code so every backend applies the same one (the
 * stores read the run and environment rows and write what this returns, inside the ingest
 * transaction). Sentry's rules: a new id opens a run (a closing check-in without an open run is
 * a run of its own); an open run is updated or closed; a finished run ignores a late
 * `in_progress` and refuses a second closing; a run the clock already marked missed or timed
 * out only gets its duration. An `error` run counts a failure, an `ok` one resets the count.
 */
export function decideCheckIn(
  run: StoredRun | undefined,
  env: { status: MonitorEnvStatus; failures: number },
  c: Pick<CheckInToWrite, 'status' | 'received' | 'durationMs'>,
  maxRuntimeMs: number,
): CheckInDecision {
  const closing = c.status !== 'in_progress'
  const failures = (failed: boolean) =>
    failed ? env.failures + 1 : c.status === 'ok' ? 0 : env.failures
  const envStatus: MonitorEnvStatus = c.status === 'in_progress' ? env.status : c.status
  if (run === undefined) {
    const dateAdded = c.received - (c.durationMs ?? 0)
    const failed = c.status === 'error'
    return {
      kind: 'write',
      run: {
        kind: 'insert',
        status: c.status,
        dateAdded,
        timeoutAt: closing ? null : dateAdded + maxRuntimeMs,
        duration: closing ? c.durationMs : null,
      },
      failed,
      envStatus,
      failures: failures(failed),
    }
  }
  if (run.status === 'ok' || run.status === 'error')
    return closing
      ? { kind: 'rejected', reason: 'checkin_already_completed' }
      : { kind: 'unchanged' }
  if (run.status === 'in_progress') {
    const failed = c.status === 'error'
    return {
      kind: 'write',
      run: {
        kind: 'update',
        status: c.status,
        timeoutAt: closing ? null : c.received + maxRuntimeMs,
        duration: closing ? (c.durationMs ?? c.received - run.dateAdded) : null,
      },
      failed,
      envStatus,
      failures: failures(failed),
    }
  }
  if (!closing) return { kind: 'unchanged' }
  return {
    kind: 'write',
    run: {
      kind: 'update',
      status: run.status,
      timeoutAt: run.timeoutAt,
      duration: c.durationMs ?? c.received - run.dateAdded,
    },
    failed: false,
    envStatus: env.status,
    failures: failures(false),
  }
}
