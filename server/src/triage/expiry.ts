import { LeasedJob, type LeaseStore } from '../store/leased-job.ts'
import type { TriageStore } from '../store/types.ts'

/** Options of {@link ignoreExpiry}. */
export interface IgnoreExpiryOptions {
  intervalMs: number
  onError: (err: unknown) => void
  now?: () => number
  holder?: string
}

/** Name of the sweep's lease row. */
export const IGNORE_EXPIRY_LEASE = 'ignore-expiry'

/**
 * Ends time-limited ignores that no new event ended: every `intervalMs` such issues go back to
 * unresolved and For review, so the Ignored tab does not keep them past their time. One node
 * of a cluster sweeps, the holder of the job's lease (store/leased-job.ts).
 */
export function ignoreExpiry(
  store: TriageStore & LeaseStore,
  opts: IgnoreExpiryOptions,
): LeasedJob {
  return new LeasedJob(store, {
    name: IGNORE_EXPIRY_LEASE,
    intervalMs: opts.intervalMs,
    onError: opts.onError,
    run: (now) => store.expireIgnores(now),
    ...(opts.now === undefined ? {} : { now: opts.now }),
    ...(opts.holder === undefined ? {} : { holder: opts.holder }),
  })
}
