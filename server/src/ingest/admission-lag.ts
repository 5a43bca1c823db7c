/**
 * How late the main thread is, and what share of new ingest requests it can still admit: the
 * signal that sees requests waiting *in front of* the ingest pipeline (in socket buffers, in the
 * HTTP parser's backlog), which the queue bound of `admission.ts` cannot see.
 *
 * A 10 ms timer measures how late each tick fires. The admitted share follows it the way TCP
 * follows loss (AIMD): each tick later than the bound right after another late one cuts the
 * share by 30 %, a tick under half the
 * bound raises it by 5 points (from the floor back to everything in about 200 ms of calm ticks).
 * A switch that shed everything while one tick was late oscillated and, on a shared machine
 * where a late tick is often another process's doing, shed 94 % under a closed-loop overload
 * (docs/ingest-protection.md). Between ticks, a loop iteration that has run for twice the bound
 * (hundreds of requests parsed back to back, the tick cannot fire) sheds what arrives in it.
 * Everything is one clock read and a few comparisons per request.
 */
export class LoopLag {
  private last: number
  private lastDelay = 0
  private lateBefore = false
  private share = 1
  private credit = 0
  private timer: NodeJS.Timeout | undefined
  private readonly boundMs: number
  private readonly intervalMs: number
  private readonly now: () => number

  /**
   * @param boundMs tick delay past which fewer requests are admitted
   * @param now clock (injected by tests)
   * @param intervalMs sampling period of the timer
   */
  constructor(boundMs: number, now: () => number = () => performance.now(), intervalMs = 10) {
    this.boundMs = boundMs
    this.now = now
    this.intervalMs = intervalMs
    this.last = now()
  }

  /** One tick of the sampling timer (called by {@link start}; tests call it with their clock). */
  sample(): void {
    const t = this.now()
    this.lastDelay = Math.max(0, t - this.last - this.intervalMs)
    this.last = t
    const late = this.lastDelay > this.boundMs
    // Two late ticks in a row: one alone is a GC pause or another process's time slice, which
    // shedding cannot shorten (on the loaded shared machine, single late ticks shed 12-19 % of
    // a 50-connection run that was not overloaded).
    if (late && this.lateBefore) this.share = Math.max(MIN_SHARE, this.share * 0.7)
    else if (this.lastDelay < this.boundMs / 2) this.share = Math.min(1, this.share + 0.05)
    this.lateBefore = late
  }

  /**
   * Whether to admit one new request now: the admitted share is spread evenly (a credit
   * counter, not a coin: deterministic, and no run of bad luck starves a client).
   */
  admit(): boolean {
    if (this.now() - this.last > this.intervalMs + 2 * this.boundMs) return false
    if (this.share >= 1) return true
    this.credit += this.share
    if (this.credit < 1) return false
    this.credit -= 1
    return true
  }

  /** The last tick's delay, the current iteration's age (ms) and the admitted share. */
  reading(): { lastDelayMs: number; sinceTickMs: number; share: number } {
    return { lastDelayMs: this.lastDelay, sinceTickMs: this.now() - this.last, share: this.share }
  }

  /** Starts the sampling timer (unref'd: it never keeps the process alive). */
  start(): void {
    if (this.timer !== undefined) return
    this.last = this.now()
    this.timer = setInterval(() => this.sample(), this.intervalMs)
    this.timer.unref()
  }

  /** Stops the sampling timer. */
  stop(): void {
    clearInterval(this.timer)
    this.timer = undefined
  }
}

/** The share never falls below this: some requests always get through to measure recovery. */
export const MIN_SHARE = 0.05
