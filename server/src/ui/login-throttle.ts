import type { LoginFailureStore } from '../store/types.ts'

/** Free failures and back-off of one kind of key. */
export interface ThrottleRule {
  /** Failures allowed before back-off starts. */
  free: number
}

/**
 * Slows password guessing with exponential back-off instead of a lock-out: after `free`
 * failures for a key, each further try waits 1, 2, 4 … s (at most `maxWaitMs`) after the last
 * failure. Keys are per client address *and* account (so a stranger's failures never hold back
 * the real user signing in from elsewhere) and per address alone with a larger allowance (one
 * address spraying many accounts). Failures are forgotten after `forgetMs` without any. The
 * counters are rows in the store, so wrong passwords sent through any node of a cluster count
 * on every node (a restart forgets nothing either).
 */
export class LoginThrottle {
  readonly #store: LoginFailureStore
  readonly #maxWaitMs: number
  readonly #forgetMs: number

  constructor(store: LoginFailureStore, opts: { maxWaitMs?: number; forgetMs?: number } = {}) {
    this.#store = store
    this.#maxWaitMs = opts.maxWaitMs ?? 15 * 60_000
    this.#forgetMs = opts.forgetMs ?? 60 * 60_000
  }

  /** Seconds to wait before another try for any of these keys, or 0 when allowed. */
  async retryAfter(
    keys: readonly (readonly [string, ThrottleRule])[],
    now = Date.now(),
  ): Promise<number> {
    const failures = await this.#store.loginFailures(
      keys.map(([k]) => k),
      now - this.#forgetMs,
    )
    let wait = 0
    for (const [key, rule] of keys) {
      const f = failures.get(key)
      if (f === undefined || f.count < rule.free) continue
      const delay = Math.min(this.#maxWaitMs, 1000 * 2 ** Math.min(30, f.count - rule.free))
      wait = Math.max(wait, Math.ceil((f.last + delay - now) / 1000))
    }
    return wait
  }

  /** Records a failed attempt under each key. */
  fail(keys: readonly (readonly [string, ThrottleRule])[], now = Date.now()): Promise<void> {
    return this.#store.recordLoginFailure(
      keys.map(([k]) => k),
      now,
      now - this.#forgetMs,
    )
  }

  /** Forgets the failures of a successful login's keys. */
  succeed(keys: readonly (readonly [string, ThrottleRule])[]): Promise<void> {
    return this.#store.clearLoginFailures(keys.map(([k]) => k))
  }
}
