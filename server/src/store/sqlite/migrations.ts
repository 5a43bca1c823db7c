import type Database from 'better-sqlite3'
import {
  type AppliedMigration,
  loadMigrationDir,
  type Migration,
  migrationChecksum,
  pendingMigrations,
} from '../migration-plan.ts'

/** Loads the SQLite migrations (`migrations/NNN-name.ts`). */
export function loadMigrations(): Promise<Migration[]> {
  return loadMigrationDir(new URL('./migrations/', import.meta.url))
}

/**
 * Applies every migration not yet recorded, all inside one `BEGIN IMMEDIATE` transaction: the
 * write lock is the migration lock, so two processes opening the same file at once apply each
 * migration once (the second waits on the busy timeout, then finds nothing pending). Refuses a
 * database whose applied migrations differ from the code's (migration-plan.ts).
 */
export function migrate(db: Database.Database, migrations: Migration[]): void {
  db.transaction(() => {
    db.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
    )
    const cols = db.prepare<[], { name: string }>('PRAGMA table_info(schema_migrations)').all()
    if (!cols.some((c) => c.name === 'checksum'))
      db.exec('ALTER TABLE schema_migrations ADD COLUMN checksum TEXT')
    const applied = db
      .prepare<[], AppliedMigration>('SELECT version, name, checksum FROM schema_migrations')
      .all()
    const pending = pendingMigrations(applied, migrations)
    // Databases from before checksums: record the code's, trusting the append-only rule once.
    const fill = db.prepare('UPDATE schema_migrations SET checksum = ? WHERE version = ?')
    for (const a of applied) {
      const m = migrations.find((x) => x.version === a.version)
      if (a.checksum === null && m !== undefined) fill.run(migrationChecksum(m.sql), a.version)
    }
    const record = db.prepare(
      'INSERT INTO schema_migrations (version, name, applied_at, checksum) VALUES (?, ?, ?, ?)',
    )
    for (const m of pending) {
      db.exec(m.sql)
      record.run(m.version, m.name, Date.now(), migrationChecksum(m.sql))
    }
  }).immediate()
}
