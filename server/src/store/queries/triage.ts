import { applyChange } from '../issue-rules.ts'
import { ISSUE_COUNT_CAP, type IssueChange, type TriageStore } from '../issue-store.ts'
import type { Issue } from '../model.ts'
import { type IssueRow, toIssue } from '../rows/issues.ts'
import { type SqlPort, type Steps, step } from '../sql/port.ts'
import { raw, sql } from '../sql/statement.ts'

/**
 * Triage writes, written once: each issue is read, changed by issue-rules.ts and written back
 * in one transaction (on SQLite an IMMEDIATE one, so nodes sharing the file cannot race between
 * the read and the write; on PostgreSQL each row is read `FOR UPDATE`).
 */
export function triageQueries(db: SqlPort): TriageStore {
  const forUpdate = raw(db.dialect === 'postgres' ? 'FOR UPDATE' : '')
  function* triage(projectId: number, ids: readonly number[], c: IssueChange): Steps<Issue[]> {
    const out: Issue[] = []
    const unique = [...new Set(ids)]
    // Ascending ids: a stable lock order against a concurrent bulk change.
    for (const id of [...unique].sort((a, b) => a - b)) {
      const row = yield* step.first<IssueRow>(
        sql`SELECT * FROM issues WHERE id = ${id} AND project_id = ${projectId} ${forUpdate}`,
      )
      if (row === undefined) continue
      const s = applyChange(toIssue(row), c)
      const updated = yield* step.first<IssueRow>(
        sql`UPDATE issues SET status = ${s.status}, for_review = ${s.forReview ? 1 : 0},
              ignore_until = ${s.ignoreUntil}, ignore_until_seen = ${s.ignoreUntilSeen}
            WHERE id = ${id} RETURNING *`,
      )
      if (updated !== undefined) out.push(toIssue(updated))
    }
    // The caller lists them in its own order; keep the order the ids were given in.
    const order = new Map(unique.map((id, i) => [id, i]))
    return out.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0))
  }
  return {
    triageIssues: (projectId, ids, change) => db.transaction(() => triage(projectId, ids, change)),
    expireIgnores: (now) =>
      db.run(
        sql`UPDATE issues SET status = 'unresolved', for_review = 1, ignore_until = NULL,
              ignore_until_seen = NULL
            WHERE ignore_until <= ${now} AND ignore_until IS NOT NULL AND status = 'ignored'`,
      ),
    countForReview: async (projectId) =>
      (
        await db.first<{ n: number }>(
          sql`SELECT COUNT(*) AS n FROM (SELECT 1 FROM issues
                WHERE project_id = ${projectId} AND status = 'unresolved' AND for_review = 1
                LIMIT ${ISSUE_COUNT_CAP + 1}) AS capped`,
        )
      )?.n ?? 0,
  }
}
