import type { Statement } from './statement.ts'

/** Which SQL dialect a port speaks, for the few statements that must differ. */
export type Dialect = 'sqlite' | 'postgres'

/** One statement a rule asks its backend to run inside a transaction (see `Steps`). */
export type SqlOp =
  | { readonly kind: 'all'; readonly q: Statement }
  | { readonly kind: 'first'; readonly q: Statement }
  | { readonly kind: 'run'; readonly q: Statement }

/**
 * A transaction written once as the sequence of statements it needs: a generator that yields
 * each statement and is handed its result. SQLite drives it synchronously inside one
 * `BEGIN IMMEDIATE` (nothing else can run on the connection in between), PostgreSQL with one
 * awaited query per step on one pooled connection. Write steps with `yield* step.first(…)`.
 */
export type Steps<T> = Generator<SqlOp, T, unknown>

/**
 * The statements of a `Steps` generator: `const row = yield* step.first<Row>(sql\`…\`)`.
 * The cast is the one place a row type is asserted, as with every driver's query result.
 */
export const step = {
  *all<T>(q: Statement): Generator<SqlOp, T[], unknown> {
    return (yield { kind: 'all', q }) as T[]
  },
  *first<T>(q: Statement): Generator<SqlOp, T | undefined, unknown> {
    return (yield { kind: 'first', q }) as T | undefined
  },
  *run(q: Statement): Generator<SqlOp, number, unknown> {
    return (yield { kind: 'run', q }) as number
  },
}

/**
 * The one port that storage written once for both backends runs its statements through
 * (accounts, teams, settings, artifacts, …). Each backend implements it over its own driver
 * (`sqlite/sql-port.ts`, `postgres/sql-port.ts`); the code above it never sees which one.
 */
export interface SqlPort {
  readonly dialect: Dialect
  /** Every row of a query. */
  all<T>(q: Statement): Promise<T[]>
  /** The first row of a query, if any. */
  first<T>(q: Statement): Promise<T | undefined>
  /** Runs a statement; returns how many rows it changed. */
  run(q: Statement): Promise<number>
  /**
   * Runs the steps `make` returns in one transaction: all of them commit or none. PostgreSQL
   * may call `make` again after a serialization failure or deadlock, so the steps must not
   * have effects outside the database.
   */
  transaction<T>(make: () => Steps<T>): Promise<T>
}
