/**
 * How many ingest requests one process lets in at once, counted from the moment Node has parsed
 * the request's headers (its `'request'` event, before Fastify, before any body byte is read)
 * until its answer is sent or the client goes away. Past the limit a request is refused at once
 * (`http/early-shed.ts`).
 *
 * Why: under an open-loop overload with every connection busy, the main thread is saturated
 * but each loop turn stays short, so the lag rule (`admission-lag.ts`) hardly fires and the
 * queue bound (`admission.ts`, commit rate × 150 ms ≈ 670 units) is never reached by 500
 * connections: every request is let in and waits ~110 ms for its share of the thread, and what
 * the server cannot answer waits in the clients (docs/ingest-protection.md). By Little's law
 * the requests in flight are the rate times the latency, so bounding them bounds the latency.
 *
 * The limit adapts like Netflix's gradient limiter (concurrency-limits, `Gradient2Limit`): every
 * window the mean time in flight of the requests that finished is compared with the target;
 * two windows in a row above it while the main thread was busy (one alone is a GC pause or
 * another process's time slice; with idle time in the window the wait was elsewhere) shrink
 * the limit by target/mean (at most 25 % per window); below it and only if
 * the limit was reached in the window (otherwise it is not what bounds anything) it grows by the
 * same ratio, at most 25 % per window. Each sample counts at most 4 × the target, so a few slow
 * clients trickling their bodies cannot drive the limit down for everyone else.
 *
 * Per request: a comparison to enter; a clock read and a few additions to leave.
 */
export class InflightLimit {
  private inflight = 0
  private current: number
  private reached = false
  private lateBefore = false
  private sum = 0
  private count = 0
  private windowStart: number
  private readonly min: number
  private readonly max: number
  private readonly targetMs: number
  private readonly now: () => number
  private readonly busy: () => number

  /**
   * @param max the limit's ceiling and starting value (0: no limit)
   * @param targetMs mean time in flight the limit aims for
   * @param now clock (injected by tests)
   * @param busy the main thread's utilisation since the last call, 0–1 (injected by tests)
   */
  constructor(
    max: number,
    targetMs: number,
    now: () => number = () => performance.now(),
    busy: () => number = loopUtilization(),
  ) {
    this.max = max > 0 ? max : Number.POSITIVE_INFINITY
    this.min = Math.min(MIN_INFLIGHT, this.max)
    this.current = this.max
    this.targetMs = targetMs
    this.now = now
    this.busy = busy
    this.windowStart = now()
  }

  /** Takes a place for one request, or says no (then refuse it); call {@link leave} once after a yes. */
  tryEnter(): boolean {
    if (this.inflight >= this.current) {
      this.reached = true
      return false
    }
    this.inflight++
    if (this.inflight >= this.current) this.reached = true
    return true
  }

  /** Gives a place back; `since` is when the request entered (this class's clock). */
  leave(since: number): void {
    this.inflight--
    const t = this.now()
    this.sum += Math.min(t - since, CAP * this.targetMs)
    this.count++
    if (t - this.windowStart >= WINDOW_MS) this.adjust(t)
  }

  /** The clock requests enter by (pass its reading to {@link leave}). */
  clock(): number {
    return this.now()
  }

  private adjust(t: number): void {
    const mean = this.sum / this.count
    const ratio = Math.min(MAX_GROWTH, Math.max(MAX_CUT, this.targetMs / Math.max(mean, 0.001)))
    // Latency over the target counts only while the main thread was busy: with idle time in the
    // window, requests waited for the group commit or for a CPU the machine gave to other
    // processes, and refusing more would not shorten that.
    const busy = this.busy() >= BUSY
    const late = ratio < 1 && busy
    // Two late windows in a row: one alone is a GC pause or another process's time slice.
    if ((late && this.lateBefore) || (ratio > 1 && this.reached)) {
      this.current = Math.min(this.max, Math.max(this.min, Math.ceil(this.current * ratio)))
    }
    this.lateBefore = late
    this.sum = 0
    this.count = 0
    this.reached = false
    this.windowStart = t
  }

  /** Requests in flight and the limit in force, for tests and diagnostics. */
  usage(): { inflight: number; limit: number } {
    return { inflight: this.inflight, limit: this.current }
  }
}

/**
 * The limit never falls below this: some requests always get through to measure recovery, and
 * a burst of a few dozen SDK requests while the thread is busy with something else (a page, a
 * GC, another process) is not refused, since a stock SDK drops what it is refused. A fixed
 * bound of 64 still answered the whole 3 × overload with an accepted p99 of 137–205 ms
 * (docs/ingest-protection.md), so this floor keeps the latency the limit is for.
 */
export const MIN_INFLIGHT = 64

/** Length of one measurement window, ms: short enough to follow an overload's onset. */
const WINDOW_MS = 100

/**
 * Largest cut per window (25 %): on the shared test machine the mean of one window swings
 * 10–170 ms at a steady 50 connections, and halving on each swing dropped the limit to the
 * floor within the sustainable run.
 */
const MAX_CUT = 0.75

/** The event loop's utilisation between two calls (`performance.eventLoopUtilization`). */
function loopUtilization(): () => number {
  let last = performance.eventLoopUtilization()
  return () => {
    const now = performance.eventLoopUtilization()
    const u = performance.eventLoopUtilization(now, last).utilization
    last = now
    return u
  }
}

/** Event-loop utilisation from which the main thread counts as busy. */
const BUSY = 0.9

/** Largest growth per window (25 %): back from the floor to 500 in about 2 s. */
const MAX_GROWTH = 1.25

/** A sample counts at most this many targets (a trickling client is not a queue). */
const CAP = 4
