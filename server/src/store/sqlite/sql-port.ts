import type Database from 'better-sqlite3'
import { LRUCache } from 'lru-cache'
import type { SqlOp, SqlPort, Steps } from '../sql/port.ts'
import { renderQuestion, type Statement } from '../sql/statement.ts'

/** Distinct statement texts kept prepared; texts come from code, so this is never reached in practice. */
const PREPARED = 500

/** better-sqlite3 binds numbers, strings, bigints, buffers and null; booleans become 0/1. */
const bindable = (v: unknown): unknown =>
  v === undefined ? null : typeof v === 'boolean' ? (v ? 1 : 0) : v

/**
 * The shared SQL port on one SQLite connection: `?` placeholders, each text prepared once
 * (an LRU of prepared statements), transactions driven synchronously inside
 * `BEGIN IMMEDIATE`, so no other statement can run on the connection in the middle of one.
 */
export function sqlitePort(db: Database.Database): SqlPort {
  const prepared = new LRUCache<string, Database.Statement>({ max: PREPARED })
  const prepare = (q: Statement): Database.Statement => {
    const text = renderQuestion(q)
    let s = prepared.get(text)
    if (s === undefined) {
      s = db.prepare(text)
      prepared.set(text, s)
    }
    return s
  }
  const values = (q: Statement): unknown[] => q.values.map(bindable)
  const exec = (op: SqlOp): unknown => {
    const s = prepare(op.q)
    if (op.kind === 'all') return s.all(...values(op.q))
    if (op.kind === 'first') return s.get(...values(op.q))
    return s.run(...values(op.q)).changes
  }
  /** Drives `steps` to their end synchronously. */
  const drive = <T>(steps: Steps<T>): T => {
    let r = steps.next()
    while (r.done !== true) r = steps.next(exec(r.value))
    return r.value
  }
  return {
    dialect: 'sqlite',
    all: async <T>(q: Statement) => exec({ kind: 'all', q }) as T[],
    first: async <T>(q: Statement) => exec({ kind: 'first', q }) as T | undefined,
    run: async (q: Statement) => exec({ kind: 'run', q }) as number,
    transaction: async <T>(make: () => Steps<T>) => db.transaction(() => drive(make())).immediate(),
  }
}
