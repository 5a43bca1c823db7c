import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { row } from '../../../test/store-contract/contract.ts'
import { openWithProject } from '../../../test/store-contract/contract-setup.ts'
import { createTestDatabase, type TestDatabase } from '../../../test/support/postgres-database.ts'
import { parseQuery } from '../../search/query.ts'
import { openSqliteStore } from '../sqlite/index.ts'
import { CopyRefusedError, copySqliteToPostgres } from './copy-from-sqlite.ts'
import { openPostgresStore } from './index.ts'

const LEGACY = JSON.stringify({ message: 'legacy row: C:\\temp\\x00 grüße' })
const ENCODED = JSON.stringify({ message: 'written by the codec', tags: [['a', 'b']] })

let db: TestDatabase | undefined
let pool: pg.Pool | undefined
let dir: string | undefined
afterEach(async () => {
  await pool?.end()
  await db?.drop()
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  db = pool = dir = undefined
})

describe('copy SQLite → PostgreSQL', () => {
  it('copies every table, verifies counts, continues ids, and refuses a non-empty target', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ingest-copy-'))
    const path = join(dir, 'ingest.sqlite')
    const { store, project, key } = await openWithProject(() =>
      openSqliteStore(path, { writerThread: false }),
    )
    await store.createUser('a@b.c', 'hash', true)
    await store.write([
      {
        events: [
          row(project.id, key.id, 'x', { tags: [['feature', 'copy']], text: 'copied words' }),
          row(project.id, key.id, 'x'),
          row(project.id, key.id, 'y', { payload: ENCODED }),
        ],
        outcomes: [
          {
            projectId: project.id,
            keyId: key.id,
            at: Date.now(),
            outcome: 'rejected',
            reason: 'no_data',
            category: 'error',
            quantity: 2,
          },
        ],
      },
    ])
    // A recorded release with its project and a deploy (the release API's tables).
    await store.upsertRelease(project.teamId, 'shop@1.0.0', { projectIds: [project.id] }, 1)
    await store.addDeploy(project.teamId, 'shop@1.0.0', {
      environment: 'production',
      name: null,
      url: null,
      dateStarted: null,
      dateFinished: 2,
    })
    await store.close()
    // A row written before the payload codec: TEXT, with what bytea input would misread.
    const legacy = new Database(path)
    legacy
      .prepare('UPDATE events SET payload = ? WHERE event_id = (SELECT min(event_id) FROM events)')
      .run(LEGACY)
    const ids = legacy
      .prepare<[], { event_id: string; t: string }>(
        'SELECT event_id, typeof(payload) AS t FROM events ORDER BY event_id',
      )
      .all()
    legacy.close()
    expect(ids.map((r) => r.t)).toEqual(['text', 'blob', 'blob'])

    db = await createTestDatabase()
    pool = new pg.Pool({ connectionString: db.url, max: 2 })
    const report = await copySqliteToPostgres(path, pool)
    const count = (t: string) => report.find((r) => r.table === t)
    expect(count('events')).toEqual({ table: 'events', sqlite: 3, postgres: 3 })
    expect(count('issues')?.postgres).toBe(2)
    expect(count('issue_tags')).toEqual({ table: 'issue_tags', sqlite: 1, postgres: 1 })
    expect(count('issue_text')).toEqual({ table: 'issue_text', sqlite: 2, postgres: 2 })
    expect(count('outcomes')?.postgres).toBeGreaterThanOrEqual(1)
    for (const t of ['releases', 'release_projects', 'release_deploys'])
      expect(count(t)).toEqual({ table: t, sqlite: 1, postgres: 1 })
    expect(report.every((r) => r.sqlite === r.postgres)).toBe(true)
    const copied = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM event_ids')
    expect(copied.rows[0]?.n).toBe(3)
    // Every payload reads back as they were written, the legacy one encoded on the way.
    const pgStore = await openPostgresStore(db.url, { poolSize: 1 })
    try {
      const read = await Promise.all(ids.map((r) => pgStore.getEvent(project.id, r.event_id)))
      expect(read.map((e) => e?.payload)).toEqual([LEGACY, '{}', ENCODED])
      // The search indexes came along: a tag and a word of the issue's text find it.
      const found = await pgStore.searchIssues(
        project.id,
        parseQuery('feature:copy copied', 0),
        'last_seen',
        { limit: 5 },
      )
      expect(found.issues.map((i) => i.title)).toEqual(['title x'])
    } finally {
      await pgStore.close()
    }
    const stored = await pool.query<{ head: number }>(
      'SELECT get_byte(payload, 0) AS head FROM events ORDER BY event_id',
    )
    // `{}` does not shrink: stored as its plain JSON bytes (first byte `{`).
    expect(stored.rows.map((r) => r.head)).toEqual([0x01, 0x7b, 0x01])
    // Identity sequences continue after the copied ids: a new project does not collide.
    const next = await pool.query<{ id: string }>(
      "INSERT INTO projects (slug, name, created_at) VALUES ('new', 'New', 0) RETURNING id",
    )
    expect(Number(next.rows[0]?.id)).toBeGreaterThan(project.id)

    await expect(copySqliteToPostgres(path, pool)).rejects.toThrow(CopyRefusedError)
  })
})
