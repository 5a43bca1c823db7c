import { ApiError } from '../errors.ts'

/** Bounds of the ingest admission controller (see docs/ingest-protection.md). */
export interface AdmissionLimits {
  /** Request body bytes (compressed plus decoded) held by all requests at once. */
  maxInflightBytes: number
  /** Write units admitted to the group commit and not yet committed. */
  maxQueuedUnits: number
  /** Seconds announced in `Retry-After` and the rate-limit header when a request is shed. */
  retryAfterSeconds: number
}

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
  private readonly limits: AdmissionLimits

  constructor(limits: AdmissionLimits) {
    this.limits = limits
  }

  /** Current use, for health output and tests. */
  usage(): { bytes: number; units: number } {
    return { bytes: this.bytes, units: this.units }
  }

  private shed(what: string): ApiError {
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
   * Runs `commit` as one admitted unit of the ingest queue, or throws a 429 at once when the
   * queue already holds its bound.
   */
  async admitUnit<T>(commit: () => Promise<T>): Promise<T> {
    if (this.units >= this.limits.maxQueuedUnits) throw this.shed('ingest queue')
    this.units++
    try {
      return await commit()
    } finally {
      this.units--
    }
  }
}
