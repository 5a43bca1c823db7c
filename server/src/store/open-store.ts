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
