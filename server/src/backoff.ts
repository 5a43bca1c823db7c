/**
 * Doubling back-off, capped, written once: the delay before retry `attempt` (1-based) is
 * `baseMs · 2^(attempt−1)`, at most `maxMs`. Alert deliveries, the PostgreSQL listening
 * connection's reconnects and PostgreSQL's transaction retries use it.
 */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number): number {
  const exp = Math.min(Math.max(attempt - 1, 0), 30)
  return Math.min(maxMs, baseMs * 2 ** exp)
}
