import { ApiError } from '../errors.ts'
import type { LoopLag } from './admission-lag.ts'

/** Bounds of the ingest admission controller (see docs/ingest-protection.md). */
export interface AdmissionLimits {
  /** Request body bytes (compressed plus decoded) held by all requests at once. */
  maxInflightBytes: number
  /** Ingest requests in flight (being read, parsed or waiting for the group commit): the hard bound. */
  maxQueuedUnits: number
  /**
   * Latency the queue may add, ms: the bound in force is the measured commit rate times this
   * (at least {@link MIN_UNITS}, at most `maxQueuedUnits`), so the queue holds only what the
   * committer clears within the target whatever the machine's speed.
   */
  targetLatencyMs: number
  /** Seconds announced in `Retry-After` and the rate-limit header when a request is shed. */
  retryAfterSeconds: number
}

/**
 * Units always admitted, however slow the measured rate: a cold or lightly loaded server has
 * not measured what it can commit, and a burst of a few hundred events (a fleet of clients
 * failing at once) is cleared in well under a second on any machine this runs on. A stock SDK
 * drops what it is refused, so refusing such a burst would lose events a 200 could have kept.
 */
export const MIN_UNITS = 256

/**
 * Ingest requests in flight before the main thread's lag may shed: a thread that is behind
 * with fewer ingest requests than a modest burst is busy with something else (a page render,
 * another process, a test run in parallel), and refusing SDK events would not shorten that.
 */
export const LAG_MIN_UNITS = 64

/** Distinct projects tallied between two takes of the early-shed counts. */
const MAX_EARLY_KEYS = 10_000

/** Length of one window of the commit-rate measurement, ms. */
const RATE_WINDOW_MS = 250

/** Reason code of shed requests, in rate-limit headers and `rejected` outcomes. */
export const SHED_REASON = 'overloaded'

/**
 * Headers of a shed answer: `Retry-After` plus a rate-limit entry without categories, which
 * stock SDKs read as "every category is limited" and so stop sending for that long
 * (protocol.md §5.1; Relay's `X-Sentry-Rate-Limits` grammar).
 */
export function shedHeaders(seconds: number): Record<string, string> {
  const value = `${seconds}::organization:${SHED_REASON}`
  return {
    'retry-after': String(seconds),
    'x-sentry-rate-limits': value,
    'x-ingest-rate-limits': value,
  }
}

/** The bytes one request holds; released once when its response is done. */
export interface ByteReservation {
  /** Holds `n` more bytes, or throws a 429 when the global budget has no room for them. */
  add(n: number): void
  /** Gives every held byte back (idempotent). */
  release(): void
}

/**
 * Counts the work ingest holds in memory — body bytes being read and decoded, units waiting
 * for the group commit — and refuses new work past either bound at once with a 429, instead
 * of letting it queue: under overload, accepted requests keep a short latency and memory stays
 * bounded, and SDKs back off on the rate-limit header. One instance per app.
 */
export class AdmissionController {
  private bytes = 0
  private units = 0
  /** Units committed in the current rate window, its start (performance.now()) and the EWMA rate, units/s. */
  private done = 0
  private windowStart: number
  private rate = 0
  /** Most units in flight at once during the current rate window. */
  private windowPeak = 0
  private readonly limits: AdmissionLimits
  private readonly lag: LoopLag | undefined
  private readonly now: () => number
  /** Requests shed before routing, by `projectId|category`, until the outcome counter takes them. */
  private early = new Map<string, number>()
  private shedEarly = 0
  private shedInside = 0

  /**
   * @param lag the main thread's lag; past its bound new requests are shed too
   * @param now clock of the commit-rate windows, ms (injected by tests)
   */
  constructor(limits: AdmissionLimits, lag?: LoopLag, now: () => number = () => performance.now()) {
    this.limits = limits
    this.lag = lag
    this.now = now
    this.windowStart = now()
  }

  /**
   * Whether to shed a new ingest request now: the queue holds its bound, or (with at least
   * {@link LAG_MIN_UNITS} in flight) the main thread is behind and this request falls outside
   * the share it still admits (so call it once per request). Cheap (a comparison and a clock
   * read), so the HTTP layer asks it before Fastify routes or parses anything
   * (`http/early-shed.ts`).
   */
  overloaded(): boolean {
    if (this.units >= this.unitBound()) return true
    return this.units >= LAG_MIN_UNITS && this.lag?.admit() === false
  }

  /** Notes one request shed before routing, to be counted as a `rejected` outcome. */
  noteEarlyShed(projectId: number, category: string): void {
    this.shedEarly++
    const k = `${projectId}|${category}`
    // Project ids come from the URL: a flood of made-up ones must not grow the tally without
    // bound (it is emptied every second; those ids belong to no project and count nothing).
    if (this.early.size >= MAX_EARLY_KEYS && !this.early.has(k)) return
    this.early.set(k, (this.early.get(k) ?? 0) + 1)
  }

  /** Takes the requests shed before routing since the last call: `[projectId, category, count]`. */
  takeEarlyShed(): [number, string, number][] {
    const out: [number, string, number][] = []
    for (const [k, n] of this.early) {
      const bar = k.indexOf('|')
      out.push([Number(k.slice(0, bar)), k.slice(bar + 1), n])
    }
    this.early = new Map()
    return out
  }

  /** Requests shed since start: before routing, and here after routing (for `/metrics`). */
  shedCounts(): { early: number; admission: number } {
    return { early: this.shedEarly, admission: this.shedInside }
  }

  /** Current use and the queue bound in force, for tests and diagnostics. */
  usage(): { bytes: number; units: number; unitBound: number } {
    return { bytes: this.bytes, units: this.units, unitBound: this.unitBound() }
  }

  /** The queue bound in force: measured commit rate × target latency, clamped. */
  unitBound(): number {
    const byRate = Math.ceil((this.rate * this.limits.targetLatencyMs) / 1000)
    return Math.min(this.limits.maxQueuedUnits, Math.max(MIN_UNITS, byRate))
  }

  private committed(): void {
    this.done++
    const now = this.now()
    const elapsed = now - this.windowStart
    if (elapsed < RATE_WINDOW_MS) return
    const windowRate = (this.done * 1000) / elapsed
    // A faster window counts fully at once (the rate rises fast). A slower one lowers it only
    // when the queue was at least half full: otherwise the clients sent less than the committer
    // could take, and the window measured their demand, not its capacity (an idle night must not
    // shrink the bound that the next burst meets).
    if (windowRate > this.rate) this.rate = windowRate
    else if (this.windowPeak * 2 >= this.unitBound()) this.rate = this.rate * 0.7 + windowRate * 0.3
    this.done = 0
    this.windowPeak = this.units
    this.windowStart = now
  }

  private shed(what: string): ApiError {
    this.shedInside++
    return new ApiError(
      'overloaded',
      `server overloaded (${what}): retry after ${this.limits.retryAfterSeconds} s`,
      [],
      shedHeaders(this.limits.retryAfterSeconds),
    )
  }

  /** Opens a byte reservation for one request body. */
  reserveBytes(): ByteReservation {
    let held = 0
    return {
      add: (n) => {
        if (this.bytes + n > this.limits.maxInflightBytes) throw this.shed('request bytes')
        this.bytes += n
        held += n
      },
      release: () => {
        this.bytes -= held
        held = 0
      },
    }
  }

  /**
   * Admits one ingest request, or throws a 429 at once when the requests in flight already
   * hold the bound: called when the request arrives, before its body is read or parsed, so a
   * shed request costs almost nothing. Call the returned function once when it is answered.
   */
  enter(): () => void {
    if (this.units >= this.unitBound()) throw this.shed('ingest queue')
    this.units++
    if (this.units > this.windowPeak) this.windowPeak = this.units
    let left = false
    return () => {
      if (left) return
      left = true
      this.units--
      this.committed()
    }
  }
}
