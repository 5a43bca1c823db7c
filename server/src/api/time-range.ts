import { z } from 'zod'
import { ApiError } from '../errors.ts'

/** One hour in milliseconds: the bucket size of every hourly series. */
export const HOUR = 3_600_000
/** Longest range an hourly series covers (93 days of buckets). */
export const MAX_BUCKETS = 93 * 24

/** Latest time a query may name: 9999-12-31T23:59:59.999Z. */
const MAX_TIME_MS = 253_402_300_799_999

/**
 * What the document promises {@link Instant} accepts: Unix seconds or ms (up to 14 digits) or an
 * ISO 8601 date or time from 1971 to 9989 (so no offset takes it outside the accepted range).
 * The parser accepts a little more (`Date.parse`); everything the pattern admits is accepted.
 */
const INSTANT_PATTERN =
  '^(\\d{1,14}(\\.\\d{1,6})?|(197[1-9]|19[89]\\d|[2-8]\\d{3}|9[0-8]\\d{2}|99[0-8]\\d)-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])(T([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d{1,3})?)?(Z|[+-]([01]\\d|2[0-3]):[0-5]\\d)?)?)$'

/** A query time, ISO 8601 or Unix seconds (ms when > 1e11), parsed to epoch ms. */
export const Instant = z
  .string()
  .max(40)
  .meta({ pattern: INSTANT_PATTERN, minLength: 1 })
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
