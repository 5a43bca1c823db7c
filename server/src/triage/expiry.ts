import type { TriageStore } from '../store/types.ts'

/** Options of {@link IgnoreExpiry}. */
export interface IgnoreExpiryOptions {
  intervalMs: number
  now?: () => number
  onError: (err: unknown) => void
}

/**
 * Ends time-limited ignores that no new event ended: every `intervalMs` such issues go back to
 * unresolved and For review, so the Ignored tab does not keep them past their time. The update
 * is idempotent, so every node of a cluster may run it.
 */
export class IgnoreExpiry {
  private timer: NodeJS.Timeout | undefined
  private readonly store: TriageStore
  private readonly opts: IgnoreExpiryOptions

  constructor(store: TriageStore, opts: IgnoreExpiryOptions) {
    this.store = store
    this.opts = opts
  }

  /** Runs one sweep now; resolves with how many issues came back. */
  async runOnce(): Promise<number> {
    return this.store.expireIgnores((this.opts.now ?? Date.now)())
  }

  /** Starts sweeping (once at once, then every interval). */
  start(): void {
    if (this.timer !== undefined) return
    const tick = () => {
      this.runOnce().catch(this.opts.onError)
    }
    tick()
    this.timer = setInterval(tick, this.opts.intervalMs)
    this.timer.unref()
  }

  /** Stops sweeping. */
  stop(): void {
    clearInterval(this.timer)
    this.timer = undefined
  }
}
