import { createHash } from 'node:crypto'

/** A schema migration of one backend: `migrations/NNN-name.ts` exporting `sql`. */
export interface Migration {
  version: number
  name: string
  sql: string
}

/** A row of `schema_migrations`: what a database says it has applied. */
export interface AppliedMigration {
  version: number
  name: string
  /** `null` on databases created before checksums were recorded (filled in on upgrade). */
  checksum: string | null
}

/**
 * The SHA-256 of a migration's SQL: a shipped migration is never edited, so a database whose
 * recorded checksum differs was built by other code, and applying more on top of it would
 * produce a schema nobody tested (Flyway and sqlx refuse the same way).
 */
export function migrationChecksum(sql: string): string {
  return createHash('sha256').update(sql).digest('hex')
}

/** Raised when a database's applied migrations are not a prefix of the code's. */
export class MigrationMismatchError extends Error {
  override name = 'MigrationMismatchError'
}

/**
 * Compares what a database applied with the code's migrations and returns those still to
 * apply. Backend-neutral: SQLite and PostgreSQL call it under their own lock. Refuses a
 * database that applied a migration this code does not have (a newer server ran on it) or
 * whose recorded checksum differs from the code's.
 */
export function pendingMigrations(
  applied: readonly AppliedMigration[],
  code: readonly Migration[],
): Migration[] {
  const byVersion = new Map(code.map((m) => [m.version, m]))
  for (const a of applied) {
    const m = byVersion.get(a.version)
    if (m === undefined)
      throw new MigrationMismatchError(
        `database has migration ${a.version} (${a.name}) that this server does not know: it was created by a newer version`,
      )
    if (a.checksum !== null && a.checksum !== migrationChecksum(m.sql))
      throw new MigrationMismatchError(
        `migration ${a.version} (${a.name}) applied to this database differs from this server's (checksum mismatch)`,
      )
  }
  const done = new Set(applied.map((a) => a.version))
  return code.filter((m) => !done.has(m.version))
}

const FILE = /^(\d{3})-([a-z0-9-]+)\.(ts|js)$/

/**
 * Loads `NNN-name.ts` files of a backend's migrations folder. Append only: a new area adds its
 * own numbered file, so parallel work does not touch a shared list.
 */
export async function loadMigrationDir(dir: URL): Promise<Migration[]> {
  const { readdirSync } = await import('node:fs')
  const found: Migration[] = []
  for (const file of readdirSync(dir)) {
    const m = FILE.exec(file)
    if (m === null) continue
    const mod: unknown = await import(new URL(file, dir).href)
    const sql = (mod as { sql?: unknown }).sql
    if (typeof sql !== 'string') throw new Error(`migration ${file} exports no sql string`)
    found.push({ version: Number(m[1]), name: m[2] ?? file, sql })
  }
  return found.sort((a, b) => a.version - b.version)
}
