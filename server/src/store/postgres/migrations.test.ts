import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../../test/support/postgres-database.ts'
import { MigrationMismatchError } from '../migration-plan.ts'
import { decodePayload } from '../payload-codec.ts'
import { loadPgMigrations, migratePg } from './migrations.ts'

let db: TestDatabase | undefined
const pools: pg.Pool[] = []
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.end()))
  await db?.drop()
  db = undefined
})
const pool = (url: string) => {
  const p = new pg.Pool({ connectionString: url, max: 2 })
  // A client still closing when afterEach drops the database gets its termination notice
  // (57P01) after the pool let go of it: expected at teardown, not a test failure.
  p.on('error', () => {})
  pools.push(p)
  return p
}

describe('postgres migrations', () => {
  it('two servers migrating one database at once apply each migration once', async () => {
    db = await createTestDatabase()
    const code = await loadPgMigrations()
    const applied = await Promise.all([
      migratePg(pool(db.url), code),
      migratePg(pool(db.url), code),
    ])
    // One of them did the work under the advisory lock, the other found nothing pending.
    expect(applied.sort()).toEqual([0, code.length])
    const p = pool(db.url)
    const { rows } = await p.query('SELECT version, checksum FROM schema_migrations')
    expect(rows).toHaveLength(code.length)
    const { rows: tables } = await p.query(
      "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public' AND tablename = 'events_default'",
    )
    expect(tables[0]).toEqual({ n: 1 })
  })

  it('leaves room on issue_tags pages, so the fold rewrites a row without touching its indexes', async () => {
    db = await createTestDatabase()
    const p = pool(db.url)
    await migratePg(p, await loadPgMigrations())
    const c = await p.connect()
    try {
      await c.query('BEGIN')
      await c.query(
        `INSERT INTO issue_tags (issue_id, key, value, times_seen, first_seen, last_seen)
         SELECT i, 'browser', 'Chrome 120.0.0', 1, 0, 0 FROM generate_series(1, 2000) AS i`,
      )
      // The fold's update: counters only, no indexed column.
      await c.query('UPDATE issue_tags SET times_seen = times_seen + 1, last_seen = 1')
      const { rows } = await c.query<{ hot: string }>(
        "SELECT pg_stat_get_xact_tuples_hot_updated('issue_tags'::regclass) AS hot",
      )
      // Full pages (fillfactor 100) would leave no room: no heap-only update at all.
      expect(Number(rows[0]?.hot)).toBeGreaterThan(500)
      await c.query('ROLLBACK')
    } finally {
      c.release()
    }
  })

  it('refuses a database whose applied migration differs from the code', async () => {
    db = await createTestDatabase()
    const code = await loadPgMigrations()
    const p = pool(db.url)
    await migratePg(p, code)
    await p.query("UPDATE schema_migrations SET checksum = 'edited' WHERE version = 1")
    await expect(migratePg(p, code)).rejects.toThrow(MigrationMismatchError)
    // The lock was released despite the refusal: another migrator does not hang.
    await p.query('UPDATE schema_migrations SET checksum = NULL WHERE version = 1')
    await expect(migratePg(pool(db.url), code)).resolves.toBe(0)
  })

  it('backfills the page summaries from the events already stored', async () => {
    db = await createTestDatabase()
    const code = await loadPgMigrations()
    const p = pool(db.url)
    await migratePg(p, code.slice(0, 1))
    const h = 3_600_000
    await p.query(`INSERT INTO projects (id, slug, name, created_at) VALUES (1, 'p', 'p', 0);
      INSERT INTO issues (id, project_id, title, culprit, level, status, first_seen, last_seen, times_seen, grouping_version)
        VALUES (5, 1, 't', 'c', 'error', 'unresolved', 0, 0, 3, 'v1');
      INSERT INTO events (project_id, event_id, issue_id, key_id, timestamp, received, level, release, environment, component, payload) VALUES
        (1, 'a', 5, 1, 0, ${h + 1}, 'error', 'r@1', 'prod', NULL, '{}'),
        (1, 'b', 5, 1, 0, ${h + 2}, 'error', 'r@1', 'staging', '', '{}'),
        (1, 'c', 5, 1, 0, ${3 * h}, 'error', NULL, 'prod', 'web', '{}')`)
    await migratePg(p, code)
    const facets = await p.query(
      'SELECT kind, value FROM issue_facets WHERE issue_id = 5 ORDER BY kind, value',
    )
    expect(facets.rows).toEqual([
      { kind: 'component', value: 'web' },
      { kind: 'environment', value: 'prod' },
      { kind: 'environment', value: 'staging' },
      { kind: 'release', value: 'r@1' },
    ])
    const hours = await p.query(
      'SELECT hour::int AS hour, events::int AS events FROM issue_hours ORDER BY hour',
    )
    expect(hours.rows).toEqual([
      { hour: h, events: 2 },
      { hour: 3 * h, events: 1 },
    ])
  })
  it('turns TEXT payloads into bytea the codec reads, and reads an issue newest first backwards', async () => {
    db = await createTestDatabase()
    const code = await loadPgMigrations()
    const p = pool(db.url)
    await migratePg(p, code.slice(0, 5))
    const legacy = JSON.stringify({ message: 'before the codec: C:\\temp grüße \ud800' })
    await p.query(`INSERT INTO projects (id, slug, name, created_at) VALUES (1, 'p', 'p', 0);
      INSERT INTO issues (id, project_id, title, culprit, level, status, first_seen, last_seen, times_seen, grouping_version)
        VALUES (5, 1, 't', 'c', 'error', 'unresolved', 0, 0, 1, 'v1')`)
    await p.query(
      `INSERT INTO events (project_id, event_id, issue_id, key_id, timestamp, received, level, payload)
       VALUES (1, 'a', 5, 1, 0, 0, 'error', $1)`,
      [legacy],
    )
    await migratePg(p, code)
    const { rows } = await p.query<{ payload: Buffer; t: string }>(
      'SELECT payload, pg_typeof(payload)::text AS t FROM events',
    )
    expect(rows.map((r) => r.t)).toEqual(['bytea'])
    expect(decodePayload(rows[0]?.payload ?? Buffer.alloc(0))).toBe(legacy)
    // The events newest first come from the ascending index, scanned backwards.
    const c = await p.connect()
    try {
      await c.query('SET enable_seqscan = off')
      const plan = await c.query<{ 'QUERY PLAN': string }>(
        'EXPLAIN SELECT * FROM events WHERE issue_id = 5 AND id < 10 ORDER BY id DESC LIMIT 50',
      )
      const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n')
      expect(text).toMatch(/Index Scan Backward using events_default_issue_id_id_idx/)
      expect(text).not.toMatch(/Sort/)
    } finally {
      c.release()
    }
  })
})
