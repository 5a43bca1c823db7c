import type Database from 'better-sqlite3'
import type { LoginFailureStore, LoginFailures } from '../types.ts'

/** The sign-in throttle's counters on SQLite (`login_failures`, migration 010). */
export function sqliteLoginFailures(db: Database.Database): LoginFailureStore {
  const read = db.prepare<[string, number], { key: string; count: number; last: number }>(
    'SELECT key, count, last FROM login_failures WHERE key IN (SELECT value FROM json_each(?)) AND last >= ?',
  )
  const add = db.prepare<[string, number, number]>(
    `INSERT INTO login_failures (key, count, last) VALUES (?, 1, ?)
     ON CONFLICT (key) DO UPDATE SET
       count = CASE WHEN login_failures.last < ? THEN 1 ELSE login_failures.count + 1 END,
       last = excluded.last`,
  )
  // Failures nobody repeated within the forget time are dropped on the next failure.
  const purge = db.prepare<[number]>('DELETE FROM login_failures WHERE last < ?')
  const clear = db.prepare<[string]>(
    'DELETE FROM login_failures WHERE key IN (SELECT value FROM json_each(?))',
  )
  const record = db.transaction((keys: readonly string[], now: number, since: number) => {
    purge.run(since)
    for (const k of keys) add.run(k, now, since)
  })
  return {
    loginFailures: async (keys, since) =>
      new Map<string, LoginFailures>(
        read.all(JSON.stringify(keys), since).map((r) => [r.key, { count: r.count, last: r.last }]),
      ),
    recordLoginFailure: async (keys, now, since) => {
      record(keys, now, since)
    },
    clearLoginFailures: async (keys) => {
      clear.run(JSON.stringify(keys))
    },
  }
}
