import type pg from 'pg'
import type { LoginFailureStore, LoginFailures } from '../types.ts'
import { all, run, transaction } from './db.ts'

/** The sign-in throttle's counters on PostgreSQL: one atomic upsert per key and failure. */
export function pgLoginFailures(pool: pg.Pool): LoginFailureStore {
  return {
    loginFailures: async (keys, since) => {
      const rows = await all<{ key: string; count: number; last: number }>(
        pool,
        'SELECT key, count, last FROM login_failures WHERE key = ANY($1::text[]) AND last >= $2',
        [keys, since],
      )
      return new Map<string, LoginFailures>(
        rows.map((r) => [r.key, { count: r.count, last: r.last }]),
      )
    },
    recordLoginFailure: (keys, now, since) =>
      transaction(pool, async (c) => {
        // Failures nobody repeated within the forget time are dropped on the next failure.
        await run(c, 'DELETE FROM login_failures WHERE last < $1', [since])
        // Sorted: two nodes recording failures of the same keys lock them in one order.
        for (const k of [...keys].sort())
          await run(
            c,
            `INSERT INTO login_failures (key, count, last) VALUES ($1, 1, $2)
             ON CONFLICT (key) DO UPDATE SET
               count = CASE WHEN login_failures.last < $3 THEN 1 ELSE login_failures.count + 1 END,
               last = excluded.last`,
            [k, now, since],
          )
      }),
    clearLoginFailures: async (keys) => {
      await run(pool, 'DELETE FROM login_failures WHERE key = ANY($1::text[])', [keys])
    },
  }
}
