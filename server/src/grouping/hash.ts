import { createHash } from 'node:crypto'

/** Joins hashed values; NUL does not occur in the names, paths and messages SDKs send. */
const SEPARATOR = '\u0000'

/** Hashes an ordered list of grouping values: equal lists, and only those, share a group. */
export function hashValues(values: readonly string[]): string {
  return createHash('sha256').update(values.join(SEPARATOR)).digest('hex')
}
