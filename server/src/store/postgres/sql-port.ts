import type pg from 'pg'
import type { SqlOp, SqlPort, Steps } from '../sql/port.ts'
import { renderNumbered, type Statement } from '../sql/statement.ts'
import { all, type Db, first, run, transaction } from './db.ts'

/** The schema keeps flags as integers on both backends: booleans are bound as 0/1. */
const bindable = (v: unknown): unknown =>
  v === undefined ? null : typeof v === 'boolean' ? (v ? 1 : 0) : v

const exec = (db: Db, op: SqlOp): Promise<unknown> => {
  const text = renderNumbered(op.q)
  const values = op.q.values.map(bindable)
  if (op.kind === 'all') return all(db, text, values)
  if (op.kind === 'first') return first(db, text, values)
  return run(db, text, values)
}

/**
 * Drives `steps` on `db` (a pool or a connection inside a transaction the caller owns), one
 * awaited query per step: the group commit runs shared steps (check-ins, release health) on
 * its own transaction's connection this way.
 */
export async function driveSteps<T>(db: Db, steps: Steps<T>): Promise<T> {
  let r = steps.next()
  while (r.done !== true) r = steps.next(await exec(db, r.value))
  return r.value
}

/**
 * The shared SQL port on the store's pool: `$n` placeholders, values cleaned as every query of
 * this backend (db.ts), transactions on one pooled connection with one awaited query per step,
 * rerun from a fresh `make()` on a serialization failure or deadlock.
 */
export function postgresPort(pool: pg.Pool): SqlPort {
  return {
    dialect: 'postgres',
    all: async <T>(q: Statement) => (await exec(pool, { kind: 'all', q })) as T[],
    first: async <T>(q: Statement) => (await exec(pool, { kind: 'first', q })) as T | undefined,
    run: async (q: Statement) => (await exec(pool, { kind: 'run', q })) as number,
    transaction: <T>(make: () => Steps<T>) =>
      transaction(pool, (client) => driveSteps(client, make())),
  }
}
