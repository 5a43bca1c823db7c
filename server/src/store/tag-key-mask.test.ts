import Database from 'better-sqlite3'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { createTestDatabase } from '../../test/support/postgres-database.ts'
import { loadPgMigrations, migratePg } from './postgres/migrations.ts'
import { loadMigrations, migrate } from './sqlite/migrations.ts'
import { issueKeyMasks, TAG_KEY_BITS } from './tag-key-mask.ts'

// Issues 1 and 2 as stored before `issues.tag_keys`: 1 carried `user` and `level`, 2 only an
// SDK tag, 3 nothing.
const SEED = `INSERT INTO projects (id, slug, name, created_at) VALUES (1, 'p', 'p', 0);
INSERT INTO issues (id, project_id, title, culprit, level, first_seen, last_seen, times_seen, grouping_version)
  VALUES (1, 1, 'a', '', 'error', 0, 0, 2, '1'), (2, 1, 'b', '', 'error', 0, 0, 1, '1'), (3, 1, 'c', '', 'error', 0, 0, 1, '1');
INSERT INTO issue_tags (issue_id, key, value, times_seen, first_seen, last_seen) VALUES
  (1, 'user', 'id:1', 1, 0, 0), (1, 'user', 'id:2', 1, 0, 0), (1, 'level', 'error', 2, 0, 0),
  (2, 'team', 'payments', 1, 0, 0);`
const bits = (...keys: string[]) => keys.reduce((m, k) => m | (TAG_KEY_BITS.get(k) ?? 0), 0)
const EXPECTED = [
  { id: 1, tag_keys: bits('user', 'level') },
  { id: 2, tag_keys: 0 },
  { id: 3, tag_keys: 0 },
]

describe('issues.tag_keys', () => {
  it('gives each promoted key its own bit, and each issue the bits of its rows', () => {
    const all = [...TAG_KEY_BITS.values()]
    expect(new Set(all).size).toBe(all.length)
    expect(all.every((b) => b > 0 && b < 2 ** 31)).toBe(true)
    expect(
      issueKeyMasks([
        [2, 'user', 'id:1', 1, 0, 0],
        [1, 'team', 'x', 1, 0, 0],
        [2, 'level', 'error', 1, 0, 0],
        [2, 'user', 'id:2', 1, 0, 0],
      ]),
    ).toEqual([[2, bits('user', 'level')]])
  })

  it('is set from the issue_tags rows stored before it by SQLite migration 016', async () => {
    const db = new Database(':memory:')
    const code = await loadMigrations()
    migrate(
      db,
      code.filter((m) => m.version < 16),
    )
    db.exec(SEED)
    migrate(db, code)
    expect(db.prepare('SELECT id, tag_keys FROM issues ORDER BY id').all()).toEqual(EXPECTED)
    db.close()
  })

  describe('PostgreSQL', () => {
    const cleanup: (() => Promise<void>)[] = []
    afterAll(async () => {
      for (const c of cleanup.reverse()) await c()
    })
    it('is set from the issue_tags rows stored before it by PostgreSQL migration 012', async () => {
      const tdb = await createTestDatabase()
      const p = new pg.Pool({ connectionString: tdb.url, max: 1 })
      cleanup.push(
        () => tdb.drop(),
        () => p.end(),
      )
      const code = await loadPgMigrations()
      await migratePg(
        p,
        code.filter((m) => m.version < 12),
      )
      await p.query(SEED)
      await migratePg(p, code)
      const { rows } = await p.query('SELECT id::int AS id, tag_keys FROM issues ORDER BY id')
      expect(rows).toEqual(EXPECTED)
    })
  })
})
