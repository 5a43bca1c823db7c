import type Database from 'better-sqlite3'
import { applyChange } from '../issue-rules.ts'
import { type IssueRow, toIssue } from '../rows/issues.ts'
import { ISSUE_COUNT_CAP, type Issue, type IssueChange, type TriageStore } from '../types.ts'

/** Triage writes on SQLite. */
export function sqliteTriage(db: Database.Database): TriageStore {
  const oneIssue = db.prepare<[number, number], IssueRow>(
    'SELECT * FROM issues WHERE id = ? AND project_id = ?',
  )
  const update = db.prepare<[string, number, number | null, number | null, number], IssueRow>(
    `UPDATE issues SET status = ?, for_review = ?, ignore_until = ?, ignore_until_seen = ?
     WHERE id = ? RETURNING *`,
  )
  const expire = db.prepare<[number]>(
    `UPDATE issues SET status = 'unresolved', for_review = 1, ignore_until = NULL,
       ignore_until_seen = NULL
     WHERE ignore_until <= ? AND ignore_until IS NOT NULL AND status = 'ignored'`,
  )
  const forReview = db.prepare<[number, number], { n: number }>(
    `SELECT COUNT(*) AS n FROM (SELECT 1 FROM issues
       WHERE project_id = ? AND status = 'unresolved' AND for_review = 1 LIMIT ?)`,
  )
  const triage = db.transaction((projectId: number, ids: readonly number[], c: IssueChange) => {
    const out: Issue[] = []
    for (const id of new Set(ids)) {
      const row = oneIssue.get(id, projectId)
      if (row === undefined) continue
      const s = applyChange(toIssue(row), c)
      const updated = update.get(
        s.status,
        s.forReview ? 1 : 0,
        s.ignoreUntil,
        s.ignoreUntilSeen,
        id,
      )
      if (updated !== undefined) out.push(toIssue(updated))
    }
    return out
  })
  return {
    // IMMEDIATE: it reads before it writes, and nodes sharing the file must not race between.
    triageIssues: async (projectId, ids, change) => triage.immediate(projectId, ids, change),
    expireIgnores: async (now) => expire.run(now).changes,
    countForReview: async (projectId) => forReview.get(projectId, ISSUE_COUNT_CAP + 1)?.n ?? 0,
  }
}
