import pg from 'pg'
import { backoffDelay } from '../../backoff.ts'
import { PipelinedTx } from './pipelined-tx.ts'

/** A pool, one checked-out connection or a transaction's: every query helper takes any. */
export interface Db {
  query(config: pg.QueryConfig): Promise<pg.QueryResult>
}

const INT8 = 20
const NUMERIC = 1700

/**
 * The type parsers of the store's pool: `BIGINT` columns (ms timestamps, ids, counters) and
 * `SUM()`/`COUNT()` results come back as numbers, like on SQLite. Every value the store keeps
 * is far below 2^53 (ms timestamps until the year 287 396, identity ids, counters), so the
 * conversion is exact; pg's default (strings) exists for values that are not.
 */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === INT8 || oid === NUMERIC) return (v: string) => Number(v)
    return pg.types.getTypeParser(oid, format ?? 'text')
  }) as typeof pg.types.getTypeParser,
}

/**
 * Opens the store's pool of `size` connections on `url`, in pg's pipeline mode: a connection
 * sends a statement without waiting for the previous one's answer, which is what lets a
 * transaction send several in one write (pipelined-tx.ts). Code that awaits each statement
 * behaves as without it.
 */
export function openPool(url: string, size: number): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: size, types, pipeline: true })
  // An idle connection the server ended (restart, failover, pg_terminate_backend) is dropped
  // by the pool and replaced on next use; unhandled, its 'error' event would end the process.
  pool.on('error', () => undefined)
  return pool
}

const NUL = /\0/g

/**
 * Values bound to a statement, adjusted to what PostgreSQL's column types take where SQLite's
 * take more. `TEXT` cannot hold U+0000 and client data may carry it (an exception type, a
 * release): it becomes U+FFFD, so the write succeeds instead of failing the request with a
 * 503; payloads are JSON, where the character stays escaped. Every numeric column is an
 * integer (ms, counts), and a client's float (a check-in duration of 1.5034 s is
 * 1503.4 ms) would fail the `BIGINT` cast: it is rounded to the nearest integer.
 */
const cleanValue = (p: unknown): unknown => {
  if (typeof p === 'string') return p.includes('\0') ? p.replace(NUL, '\uFFFD') : p
  if (typeof p === 'number' && Number.isFinite(p) && !Number.isInteger(p)) return Math.round(p)
  return p
}
// Arrays (bulk inserts through unnest) are cleaned element by element.
const clean = (params: unknown[]): unknown[] =>
  params.map((p) => (Array.isArray(p) ? p.map(cleanValue) : cleanValue(p)))

/**
 * A query's config: `name` makes it a prepared statement of each connection (parsed once per
 * connection, not per call), for the fixed texts of the ingest path.
 */
const config = (text: string, params: unknown[], name?: string): pg.QueryConfig =>
  name === undefined ? { text, values: clean(params) } : { name, text, values: clean(params) }

/** All rows of a query (`name`: prepared once per connection). */
export async function all<T>(
  db: Db,
  sql: string,
  params: unknown[] = [],
  name?: string,
): Promise<T[]> {
  return (await db.query(config(sql, params, name))).rows as T[]
}

/** The first row of a query, if any. */
export async function first<T>(
  db: Db,
  sql: string,
  params: unknown[] = [],
  name?: string,
): Promise<T | undefined> {
  return (await db.query(config(sql, params, name))).rows[0] as T | undefined
}

/** Runs a statement; returns how many rows it changed. */
export async function run(
  db: Db,
  sql: string,
  params: unknown[] = [],
  name?: string,
): Promise<number> {
  return (await db.query(config(sql, params, name))).rowCount ?? 0
}

/**
 * Turns `@name` parameters into `$n` ones, so statements ported from the SQLite store keep
 * their named parameters; returns the text and the values in order.
 */
export function named(sql: string, values: Record<string, unknown>): [string, unknown[]] {
  const order: string[] = []
  const text = sql.replace(/@([A-Za-z_]\w*)/g, (_, name: string) => {
    let i = order.indexOf(name)
    if (i < 0) {
      if (!(name in values)) throw new Error(`missing SQL parameter @${name}`)
      order.push(name)
      i = order.length - 1
    }
    return `$${i + 1}`
  })
  return [text, order.map((n) => values[n] ?? null)]
}

/** SQLSTATEs worth retrying the whole transaction for: serialization failure, deadlock. */
const RETRYABLE = new Set(['40001', '40P01'])
/** Attempts of one transaction before its error reaches the caller. */
const ATTEMPTS = 4
/** Waits between attempts (backoff.ts): 5 ms doubling, so two losers do not collide again at once. */
const RETRY_MIN_MS = 5
const RETRY_MAX_MS = 40

const sqlState = (err: unknown): string | undefined =>
  typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string'
    ? err.code
    : undefined

/**
 * Runs `fn` in one transaction on one pooled connection (after `before`'s statements, queued
 * ahead of `BEGIN` on every attempt), its statements pipelined
 * (pipelined-tx.ts: `BEGIN` leaves with the first statements, `COMMIT` with the last tracked
 * writes); a serialization failure or deadlock (the other transaction won) reruns it from the
 * start after a short back-off, a few times, as PostgreSQL's manual
 * advises (https://www.postgresql.org/docs/15/mvcc-serialization-failure-handling.html).
 */
export async function transaction<T>(
  pool: pg.Pool,
  fn: (c: PipelinedTx) => Promise<T>,
  before?: (c: PipelinedTx) => void,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect()
    const tx = new PipelinedTx(client)
    try {
      // Autocommit statements the caller wants in the same write, ahead of the transaction.
      before?.(tx)
      tx.track(tx.query('BEGIN'))
      const out = await fn(tx)
      const commit = tx.query('COMMIT')
      commit.catch(() => undefined) // awaited below, once the tracked writes are known good
      await tx.settled()
      // COMMIT of a transaction a failed statement aborted answers ROLLBACK, not an error.
      if ((await commit).command !== 'COMMIT') throw new Error('transaction rolled back')
      return out
    } catch (thrown) {
      const err = await tx.cause(thrown)
      await tx.query('ROLLBACK').catch(() => undefined)
      if (attempt >= ATTEMPTS || !RETRYABLE.has(sqlState(err) ?? '')) throw err
    } finally {
      client.release()
    }
    await new Promise((r) => setTimeout(r, backoffDelay(attempt, RETRY_MIN_MS, RETRY_MAX_MS)))
  }
}
