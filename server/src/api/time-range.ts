import { z } from 'zod'
import { ApiError } from '../errors.ts'

/** One hour in milliseconds: the bucket size of every hourly series. */
export const HOUR = 3_600_000
/** Longest range an hourly series covers (93 days of buckets). */
export const MAX_BUCKETS = 93 * 24

/** Latest time a query may name: 9999-12-31T23:59:59.999Z. */
const MAX_TIME_MS = 253_402_300_799_999

/** A query time, ISO 8601 or Unix seconds (ms when > 1e11), parsed to epoch ms. */
export const Instant = z
  .string()
  .max(40)
  .transform((s, ctx) => {
    const n = /^\d+(\.\d+)?$/.test(s) ? Number(s) : Number.NaN
    const ms = Number.isFinite(n) ? (n > 1e11 ? n : n * 1000) : Date.parse(s)
    // Beyond 9999 no date formatter can print it (`until=99999999999999999999`).
    if (!Number.isFinite(ms) || ms < 0 || ms > MAX_TIME_MS) {
      ctx.addIssue({ code: 'custom', message: 'expected an ISO 8601 time or Unix seconds' })
      return z.NEVER
    }
    return ms
  })

/** The `since`/`until` query fields every ranged endpoint takes. */
export const RangeQuery = { since: Instant.optional(), until: Instant.optional() }

/**
 * Widens a queried range to whole hours: `until` defaults to now, `since` to `defaultMs`
 * before it; an empty or reversed range is a 400.
 */
export function hourRange(
  q: { since?: number | undefined; until?: number | undefined },
  defaultMs: number,
): { since: number; until: number } {
  const until = Math.ceil((q.until ?? Date.now()) / HOUR) * HOUR
  const since = Math.floor((q.since ?? until - defaultMs) / HOUR) * HOUR
  if (since >= until) throw new ApiError('bad_request', 'since must be before until')
  return { since, until }
}

/** The number of hourly buckets of a range; over {@link MAX_BUCKETS} is a 400. */
export function hourBuckets(range: { since: number; until: number }): number {
  const count = (range.until - range.since) / HOUR
  if (count > MAX_BUCKETS) {
    throw new ApiError('bad_request', `range too long: at most ${MAX_BUCKETS} hourly buckets`)
  }
  return count
}

/** An epoch-ms time as the API writes it. */
export const iso = (ms: number): string => new Date(ms).toISOString()
