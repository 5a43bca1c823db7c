import type { Config } from '../config.ts'
import { openPostgresStore } from './postgres/index.ts'
import { openSqliteStore } from './sqlite/index.ts'
import type { Store } from './store.ts'

/** What the layers above hand the store when they open it. */
export interface StoreWiring {
  /**
   * URL of the module a SQLite file store's writer thread digests undigested events with
   * (`sqlite/ingest-thread.ts` `WriterDigest`; the app passes `ingest/digest-on-write.ts`).
   * The digest is injected so the store imports nothing above it; PostgreSQL ignores it (its
   * writes run on the calling thread, which digests first).
   */
  digestModule?: string
  /** Bytes the writer thread's cache of parsed source maps may hold (its digest resolves). */
  sourceMapCacheBytes?: number
}

/**
 * The one place the backend is chosen: `DATABASE_URL` (PostgreSQL, a pool of
 * `DATABASE_POOL_SIZE` connections) when set, else the SQLite file under `DATA_DIR`.
 */
export function openStore(config: Config, wiring: StoreWiring = {}): Promise<Store> {
  return config.databaseUrl !== undefined
    ? openPostgresStore(config.databaseUrl, { poolSize: config.databasePoolSize })
    : openSqliteStore(config.databasePath, {
        digestModule: wiring.digestModule,
        sourceMapCacheBytes: wiring.sourceMapCacheBytes,
      })
}

/**
 * How many group commits may be in flight at once: SQLite has one writer, so one; PostgreSQL
 * commits concurrently on separate connections, as many as the pool has.
 */
export function commitConcurrency(store: Store, config: Config): number {
  return store.dialect === 'postgres' ? config.databasePoolSize : 1
}

/**
 * Units that send a group commit to SQLite's writer at once (group-commit.ts `startAt`): 24, so
 * the one writer commits the first part of a wave of requests while the main thread still reads
 * the rest, instead of the two taking turns (`npm run bench`, six interleaved pairs against
 * one group per wave: 1.02–1.32×, median ≈ 1.10× events/s; docs/benchmark.md). Later groups
 * still grow up to the usual size while a commit runs: capping them at 24 as well gained a
 * little more at 50 connections but cut what overload accepts to a quarter. PostgreSQL commits
 * several groups at once already and keeps the default.
 */
export function commitStartAt(store: Store): number | undefined {
  return store.dialect === 'postgres' ? undefined : 24
}
