import Database from 'better-sqlite3'
import type pg from 'pg'
import { type AppliedMigration, pendingMigrations } from '../migration-plan.ts'
import { encodePayload } from '../payload-codec.ts'
import { loadMigrations } from '../sqlite/migrations.ts'
import { loadPgMigrations, migratePg } from './migrations.ts'

/**
 * Every table of the schema, parents before children (foreign keys), with whether it has an
 * identity `id` whose sequence must continue after the copied rows.
 */
const TABLES: readonly {
  name: string
  identity: boolean
  seeded?: boolean
  /** Read otherwise than `SELECT <its columns>`: SQLite's FTS5 table keys rows by rowid. */
  source?: { cols: string[]; select: string }
}[] = [
  { name: 'users', identity: true },
  // Seeded by the migration (the default team): emptied before the copy, not refused.
  { name: 'teams', identity: true, seeded: true },
  { name: 'team_members', identity: false },
  { name: 'projects', identity: true },
  { name: 'project_keys', identity: true },
  { name: 'api_tokens', identity: true },
  { name: 'ui_sessions', identity: true },
  { name: 'account_links', identity: true },
  { name: 'audit_log', identity: true },
  { name: 'project_quotas', identity: false },
  { name: 'issues', identity: true },
  { name: 'grouphashes', identity: false },
  { name: 'events', identity: true },
  { name: 'issue_facets', identity: false },
  { name: 'issue_hours', identity: false },
  { name: 'issue_tags', identity: false },
  {
    name: 'issue_text',
    identity: false,
    source: { cols: ['issue_id', 'body'], select: 'SELECT rowid, body FROM issue_text' },
  },
  { name: 'outcomes', identity: false },
  { name: 'health_sessions', identity: false },
  { name: 'health_hours', identity: false },
  { name: 'health_users', identity: false },
  { name: 'monitors', identity: true },
  { name: 'monitor_environments', identity: true },
  { name: 'monitor_checkins', identity: true },
  { name: 'clock_leases', identity: false },
  { name: 'alert_rules', identity: true },
  { name: 'alert_deliveries', identity: true },
  { name: 'releases', identity: true },
  { name: 'release_projects', identity: false },
  { name: 'release_deploys', identity: true },
]

/** PostgreSQL accepts at most 65 535 bind parameters per statement. */
const MAX_PARAMS = 60_000
const MAX_ROWS = 1_000

/** Rows per table in the source and the target after the copy. */
export type CopyReport = { table: string; sqlite: number; postgres: number }[]

/** Raised when the copy is refused (non-empty target, source not migrated) or does not verify. */
export class CopyRefusedError extends Error {
  override name = 'CopyRefusedError'
}

/**
 * Copies a SQLite database into an empty PostgreSQL one: applies the PostgreSQL migrations,
 * refuses a target that holds any row, copies every table in one transaction (all or nothing),
 * fills `event_ids` (PostgreSQL's idempotency index) from the events, moves identity sequences
 * past the copied ids, and compares the row count of every table before committing.
 */
export async function copySqliteToPostgres(sqlitePath: string, pool: pg.Pool): Promise<CopyReport> {
  const src = new Database(sqlitePath, { readonly: true, fileMustExist: true })
  try {
    const applied = src
      .prepare<[], AppliedMigration>(
        'SELECT version, name, checksum FROM schema_migrations ORDER BY version',
      )
      .all()
    if (pendingMigrations(applied, await loadMigrations()).length > 0)
      throw new CopyRefusedError(
        'the SQLite database is behind this server version: start the server on it once, then copy',
      )
    await migratePg(pool, await loadPgMigrations())
    const client = await pool.connect()
    try {
      await client.query('BEGIN')
      for (const t of TABLES) {
        if (t.seeded === true) continue
        const { rows } = await client.query<{ one: number }>(
          `SELECT 1 AS one FROM ${t.name} LIMIT 1`,
        )
        if (rows.length > 0)
          throw new CopyRefusedError(`target database is not empty (table ${t.name} has rows)`)
      }
      for (const t of TABLES) if (t.seeded === true) await client.query(`DELETE FROM ${t.name}`)
      const report: CopyReport = []
      for (const t of TABLES) {
        const cols =
          t.source?.cols ??
          src
            .prepare<[], { name: string }>(`PRAGMA table_info(${t.name})`)
            .all()
            .map((c) => c.name)
        const perBatch = Math.max(1, Math.min(MAX_ROWS, Math.floor(MAX_PARAMS / cols.length)))
        let batch: unknown[][] = []
        const flush = async () => {
          if (batch.length === 0) return
          const values = batch
            .map((_, r) => `(${cols.map((_c, c) => `$${r * cols.length + c + 1}`).join(', ')})`)
            .join(', ')
          await client.query(
            `INSERT INTO ${t.name} (${cols.join(', ')}) OVERRIDING SYSTEM VALUE VALUES ${values}`,
            batch.flat(),
          )
          batch = []
        }
        const select = src
          .prepare(t.source?.select ?? `SELECT ${cols.join(', ')} FROM ${t.name}`)
          .raw()
        // Encoded payloads (BLOBs) are copied as they are: both backends store the codec's
        // bytes. A row from before the codec is TEXT on SQLite; it is encoded on the way, since
        // a string sent for a `bytea` parameter would be parsed as bytea escapes.
        const payloadAt = t.name === 'events' ? cols.indexOf('payload') : -1
        for (const row of select.iterate() as Iterable<unknown[]>) {
          const p = row[payloadAt]
          if (typeof p === 'string') row[payloadAt] = encodePayload(p)
          batch.push(row)
          if (batch.length >= perBatch) await flush()
        }
        await flush()
        if (t.identity)
          await client.query(
            `SELECT setval(pg_get_serial_sequence('${t.name}', 'id'), COALESCE(max(id), 0) + 1, false) FROM ${t.name}`,
          )
        const want = src.prepare<[], { n: number }>(`SELECT count(*) AS n FROM ${t.name}`).get()
        const got = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${t.name}`)
        report.push({ table: t.name, sqlite: want?.n ?? 0, postgres: got.rows[0]?.n ?? -1 })
      }
      await client.query(
        'INSERT INTO event_ids (project_id, event_id, received) SELECT project_id, event_id, received FROM events',
      )
      const wrong = report.filter((r) => r.sqlite !== r.postgres)
      if (wrong.length > 0)
        throw new CopyRefusedError(
          `row counts differ after the copy: ${wrong.map((r) => `${r.table} ${r.sqlite}→${r.postgres}`).join(', ')}`,
        )
      await client.query('COMMIT')
      return report
    } catch (err) {
      await client.query('ROLLBACK')
      throw err
    } finally {
      client.release()
    }
  } finally {
    src.close()
  }
}
