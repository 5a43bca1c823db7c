/** One hour in ms: outcome counters, release-health buckets and hourly rollups are kept per hour. */
export const HOUR = 3_600_000

/** The start of the hour `ms` falls in (UTC; ms since the epoch). */
export const hourOf = (ms: number): number => Math.floor(ms / HOUR) * HOUR
