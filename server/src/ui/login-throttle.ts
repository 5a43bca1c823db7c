/**
 * Slows password guessing: after `limit` failed logins for one e-mail or one client address in
 * a window, further attempts are refused until the window has passed. In memory: a restart
 * forgets, which is acceptable for a single-process server.
 */
export class LoginThrottle {
  readonly #failures = new Map<string, number[]>()
  readonly #limit: number
  readonly #windowMs: number

  constructor(limit = 10, windowMs = 15 * 60_000) {
    this.#limit = limit
    this.#windowMs = windowMs
  }

  #recent(key: string, now: number): number[] {
    const list = (this.#failures.get(key) ?? []).filter((t) => now - t < this.#windowMs)
    if (list.length === 0) this.#failures.delete(key)
    else this.#failures.set(key, list)
    return list
  }

  /** Seconds to wait before another try for any of these keys, or 0 when allowed. */
  retryAfter(keys: readonly string[], now = Date.now()): number {
    let wait = 0
    for (const key of keys) {
      const list = this.#recent(key, now)
      const oldest = list[0]
      if (list.length >= this.#limit && oldest !== undefined) {
        wait = Math.max(wait, Math.ceil((oldest + this.#windowMs - now) / 1000))
      }
    }
    return wait
  }

  /** Records a failed attempt under each key. */
  fail(keys: readonly string[], now = Date.now()): void {
    if (this.#failures.size > 10_000) this.#failures.clear()
    for (const key of keys) this.#failures.set(key, [...this.#recent(key, now), now])
  }

  /** Forgets the failures of a successful login's keys. */
  succeed(keys: readonly string[]): void {
    for (const key of keys) this.#failures.delete(key)
  }
}
