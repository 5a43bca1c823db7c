import { readdirSync } from 'node:fs'
import type Database from 'better-sqlite3'

/** A schema migration file: `migrations/NNN-name.ts` exporting `sql`. */
interface Migration {
  version: number
  name: string
  sql: string
}

const FILE = /^(\d{3})-([a-z0-9-]+)\.(ts|js)$/

/**
 * Loads `migrations/NNN-name.ts` files. Append only: a shipped migration is never edited; a new
 * area adds its own numbered file, so parallel work does not touch a shared list.
 */
export async function loadMigrations(): Promise<Migration[]> {
  const dir = new URL('./migrations/', import.meta.url)
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

/** Applies every migration not yet recorded, each in its own transaction. */
export function migrate(db: Database.Database, migrations: Migration[]): void {
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
  )
  const applied = new Set(
    db
      .prepare<[], { version: number }>('SELECT version FROM schema_migrations')
      .all()
      .map((r) => r.version),
  )
  const record = db.prepare(
    'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
  )
  for (const m of migrations) {
    if (applied.has(m.version)) continue
    db.transaction(() => {
      db.exec(m.sql)
      record.run(m.version, m.name, Date.now())
    })()
  }
}
