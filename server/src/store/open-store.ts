import type { Config } from '../config.ts'
import { openPostgresStore } from './postgres/index.ts'
import { openSqliteStore } from './sqlite/index.ts'
import type { Store } from './types.ts'

/**
 * The one place the backend is chosen: `DATABASE_URL` (PostgreSQL, a pool of
 * `DATABASE_POOL_SIZE` connections) when set, else the SQLite file under `DATA_DIR`.
 */
export function openStore(config: Config): Promise<Store> {
  return config.databaseUrl !== undefined
    ? openPostgresStore(config.databaseUrl, { poolSize: config.databasePoolSize })
    : openSqliteStore(config.databasePath)
}

/**
 * How many group commits may be in flight at once: SQLite has one writer, so one; PostgreSQL
 * commits concurrently on separate connections, as many as the pool has.
 */
export function commitConcurrency(store: Store, config: Config): number {
  return store.dialect === 'postgres' ? config.databasePoolSize : 1
}

/**
 * The group size on SQLite: a group of 24 units goes to the writer at once (group-commit.ts
 * `startAt`) and groups hold at most 24, so the one writer commits the first part of a wave of
 * requests while the main thread still reads the rest, instead of the two taking turns
 * (`npm run bench`, eight interleaved pairs against groups of up to 500 after a 2 ms delay:
 * 1.03–1.26×, median ≈ 1.15× events/s; docs/benchmark.md). PostgreSQL commits several groups
 * at once already and keeps the defaults (larger groups, fewer transactions).
 */
export function commitGroupSize(store: Store): number | undefined {
  return store.dialect === 'postgres' ? undefined : 24
}
