import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { loadMigrations, migrate } from './migrations.ts'

const db = new Database(':memory:')
migrate(db, await loadMigrations())
const plan = (sql: string, ...args: number[]) =>
  db
    .prepare<number[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
    .all(...args)
    .map((r) => r.detail)
    .join(' | ')

describe('events indexes', () => {
  it('serves an issue’s events by id from events_issue(issue_id) and its trailing rowid', () => {
    const cols = db.prepare<[], { name: string }>("PRAGMA index_info('events_issue')").all()
    expect(cols.map((c) => c.name)).toEqual(['issue_id'])
    for (const sql of [
      'SELECT * FROM events WHERE issue_id = ? AND id < ? ORDER BY id DESC LIMIT ?',
      'SELECT event_id FROM events WHERE issue_id = ? AND id > ? ORDER BY id ASC LIMIT ?',
      'SELECT event_id FROM events WHERE issue_id = ? AND id < ? ORDER BY id DESC LIMIT ?',
    ]) {
      const p = plan(sql, 1, 2, 3)
      expect(p, sql).toMatch(
        /^SEARCH events USING INDEX events_issue \(issue_id=\? AND rowid[<>]\?\)$/,
      )
    }
    expect(plan('SELECT event_id FROM events WHERE issue_id = ? ORDER BY id DESC LIMIT 1', 1)).toBe(
      'SEARCH events USING INDEX events_issue (issue_id=?)',
    )
  })
})
