import type { LoginFailureStore, LoginFailures } from '../account-store.ts'
import { inList } from '../sql/in-list.ts'
import { type SqlPort, type Steps, step } from '../sql/port.ts'
import { sql } from '../sql/statement.ts'

/** The sign-in throttle's counters (`login_failures`), written once for both backends. */
export function loginFailureQueries(db: SqlPort): LoginFailureStore {
  function* record(keys: readonly string[], now: number, since: number): Steps<void> {
    // Failures nobody repeated within the forget time are dropped on the next failure.
    yield* step.run(sql`DELETE FROM login_failures WHERE last < ${since}`)
    // Sorted: two PostgreSQL nodes recording failures of the same keys lock them in one order.
    for (const k of [...keys].sort())
      yield* step.run(
        sql`INSERT INTO login_failures (key, count, last) VALUES (${k}, 1, ${now})
            ON CONFLICT (key) DO UPDATE SET
              count = CASE WHEN login_failures.last < ${since} THEN 1 ELSE login_failures.count + 1 END,
              last = excluded.last`,
      )
  }
  return {
    loginFailures: async (keys, since) => {
      const rows = await db.all<{ key: string; count: number; last: number }>(
        sql`SELECT key, count, last FROM login_failures WHERE ${inList(db.dialect, 'key', keys, 'text')} AND last >= ${since}`,
      )
      return new Map<string, LoginFailures>(
        rows.map((r) => [r.key, { count: r.count, last: r.last }]),
      )
    },
    recordLoginFailure: (keys, now, since) => db.transaction(() => record(keys, now, since)),
    clearLoginFailures: async (keys) => {
      await db.run(sql`DELETE FROM login_failures WHERE ${inList(db.dialect, 'key', keys, 'text')}`)
    },
  }
}
