/** One throttled key: how many failures in a row and when the last one was, ms. */
interface Failures {
  count: number
  last: number
}

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
 * address spraying many accounts). Failures are forgotten after `forgetMs` without any. In memory:
 * a restart forgets, acceptable for a single-process server.
 */
export class LoginThrottle {
  readonly #failures = new Map<string, Failures>()
  readonly #maxWaitMs: number
  readonly #forgetMs: number

  constructor(opts: { maxWaitMs?: number; forgetMs?: number } = {}) {
    this.#maxWaitMs = opts.maxWaitMs ?? 15 * 60_000
    this.#forgetMs = opts.forgetMs ?? 60 * 60_000
  }

  #get(key: string, now: number): Failures | undefined {
    const f = this.#failures.get(key)
    if (f !== undefined && now - f.last > this.#forgetMs) {
      this.#failures.delete(key)
      return undefined
    }
    return f
  }

  /** Seconds to wait before another try for any of these keys, or 0 when allowed. */
  retryAfter(keys: readonly (readonly [string, ThrottleRule])[], now = Date.now()): number {
    let wait = 0
    for (const [key, rule] of keys) {
      const f = this.#get(key, now)
      if (f === undefined || f.count < rule.free) continue
      const delay = Math.min(this.#maxWaitMs, 1000 * 2 ** Math.min(30, f.count - rule.free))
      wait = Math.max(wait, Math.ceil((f.last + delay - now) / 1000))
    }
    return wait
  }

  /** Records a failed attempt under each key. */
  fail(keys: readonly (readonly [string, ThrottleRule])[], now = Date.now()): void {
    if (this.#failures.size > 100_000) this.#failures.clear()
    for (const [key] of keys) {
      const f = this.#get(key, now)
      this.#failures.set(key, { count: (f?.count ?? 0) + 1, last: now })
    }
  }

  /** Forgets the failures of a successful login's keys. */
  succeed(keys: readonly (readonly [string, ThrottleRule])[]): void {
    for (const [key] of keys) this.#failures.delete(key)
  }
}
