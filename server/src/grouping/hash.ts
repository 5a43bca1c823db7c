import { hash } from 'node:crypto'

/** Joins hashed values; NUL does not occur in the names, paths and messages SDKs send. */
const SEPARATOR = '\u0000'

/** Hashes an ordered list of grouping values: equal lists, and only those, share a group. */
export function hashValues(values: readonly string[]): string {
  // One-shot `hash` (Node ≥ 20.12): same digest as createHash().update().digest(), no Hash object.
  return hash('sha256', values.join(SEPARATOR), 'hex')
}
