import type { Config } from '../../src/config.ts'
import { openPostgresStore } from '../../src/store/postgres/index.ts'
import type { Store } from '../../src/store/types.ts'
import { createTestDatabase, type TestDatabase } from './postgres-database.ts'

/**
 * `TEST_DATABASE=postgres` (set by the `integration-postgres` vitest project) runs the HTTP
 * tests on PostgreSQL: each app gets an empty database of its own. Apps given the same SQLite
 * `databasePath` (two nodes on one database, a restart) get the same PostgreSQL database, so
 * those tests mean the same on both backends.
 */
export const onPostgres = process.env['TEST_DATABASE'] === 'postgres'

/** Databases standing for a shared SQLite file, kept until the run's PostgreSQL stops. */
const shared = new Map<string, Promise<TestDatabase>>()

/**
 * The config and store an app of a test runs with on the selected backend (no store: the app
 * opens its own, SQLite), and the clean-up to run when the app closes. Fastify runs `onClose`
 * hooks last-registered first, so the clean-up closes the store itself (the app's own close of
 * it is then a no-op) before it drops the database.
 */
export async function testBackend(
  config: Config,
): Promise<{ config: Config; store?: Store; cleanup: () => Promise<void> }> {
  if (!onPostgres) return { config, cleanup: async () => undefined }
  const path = config.databasePath
  let db: TestDatabase
  let drop = async (): Promise<void> => undefined
  if (path === ':memory:') {
    db = await createTestDatabase()
    drop = () => db.drop()
  } else {
    const found = shared.get(path) ?? createTestDatabase()
    shared.set(path, found)
    db = await found
  }
  const pgConfig = { ...config, databaseUrl: db.url, databasePoolSize: 4 }
  const opened = await openPostgresStore(db.url, { poolSize: pgConfig.databasePoolSize })
  let closing: Promise<void> | undefined
  const close = (): Promise<void> => {
    closing ??= opened.close()
    return closing
  }
  const store: Store = { ...opened, close }
  return {
    config: pgConfig,
    store,
    cleanup: async () => {
      await close()
      await drop()
    },
  }
}
