import type pg from 'pg'
import {
  type AppliedMigration,
  loadMigrationDir,
  type Migration,
  migrationChecksum,
  pendingMigrations,
} from '../migration-plan.ts'

/**
 * The advisory-lock key every server node takes while migrating (any fixed 64-bit number;
 * this one is the first bytes of sha256("ingest schema_migrations")), so nodes starting at
 * once apply each migration exactly once and the others wait, then find nothing pending.
 */
export const MIGRATION_LOCK_KEY = 0x1d7c_5e3a_9b21

/** Loads the PostgreSQL migrations (`migrations/NNN-name.ts`). */
export function loadPgMigrations(): Promise<Migration[]> {
  return loadMigrationDir(new URL('./migrations/', import.meta.url))
}

/**
 * Applies pending migrations under a session-level advisory lock on one pooled connection,
 * each migration in its own transaction with its `schema_migrations` row (PostgreSQL DDL is
 * transactional, so a failed migration leaves nothing behind). Refuses a database whose
 * applied migrations differ from the code's (migration-plan.ts).
 */
export async function migratePg(pool: pg.Pool, migrations: Migration[]): Promise<number> {
  const client = await pool.connect()
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY])
    try {
      await client.query(
        `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY,
           name TEXT NOT NULL, applied_at BIGINT NOT NULL, checksum TEXT)`,
      )
      const { rows } = await client.query<AppliedMigration>(
        'SELECT version, name, checksum FROM schema_migrations ORDER BY version',
      )
      const pending = pendingMigrations(rows, migrations)
      for (const m of pending) {
        await client.query('BEGIN')
        try {
          await client.query(m.sql)
          await client.query(
            'INSERT INTO schema_migrations (version, name, applied_at, checksum) VALUES ($1, $2, $3, $4)',
            [m.version, m.name, Date.now(), migrationChecksum(m.sql)],
          )
          await client.query('COMMIT')
        } catch (err) {
          await client.query('ROLLBACK')
          throw err
        }
      }
      return pending.length
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY])
    }
  } finally {
    client.release()
  }
}
