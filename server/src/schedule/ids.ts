import { createHash } from 'node:crypto'

/**
 * A 32-hex id derived from its parts. Runs the clock records and the events failures become
 * get such ids, so recording or reporting the same failure twice (a restart, a second node)
 * hits a unique key instead of creating a second row or event.
 */
export function derivedId(...parts: (string | number)[]): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 32)
}

/** The all-zero check-in id: "the newest open run of this monitor and environment". */
export const ZERO_ID = '0'.repeat(32)
