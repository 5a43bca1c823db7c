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
 * Runs shared statements and `Steps` synchronously on one SQLite connection, each text
 * prepared once (an LRU of prepared statements). The writer thread uses it inside its own
 * transaction, where awaiting a promise per statement would cost more than the statement.
 */
export interface SqliteStepRunner {
  exec(op: SqlOp): unknown
  /** Drives `steps` to their end; the caller owns the transaction. */
  drive<T>(steps: Steps<T>): T
}

/** The synchronous runner of shared statements on `db` (see `SqliteStepRunner`). */
export function sqliteStepRunner(db: Database.Database): SqliteStepRunner {
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
  const drive = <T>(steps: Steps<T>): T => {
    let r = steps.next()
    while (r.done !== true) r = steps.next(exec(r.value))
    return r.value
  }
  return { exec, drive }
}

/**
 * The shared SQL port on one SQLite connection: `?` placeholders, transactions driven
 * synchronously inside `BEGIN IMMEDIATE`, so no other statement can run on the connection in
 * the middle of one.
 */
export function sqlitePort(db: Database.Database): SqlPort {
  const { exec, drive } = sqliteStepRunner(db)
  return {
    dialect: 'sqlite',
    all: async <T>(q: Statement) => exec({ kind: 'all', q }) as T[],
    first: async <T>(q: Statement) => exec({ kind: 'first', q }) as T | undefined,
    run: async (q: Statement) => exec({ kind: 'run', q }) as number,
    transaction: async <T>(make: () => Steps<T>) => db.transaction(() => drive(make())).immediate(),
  }
}
