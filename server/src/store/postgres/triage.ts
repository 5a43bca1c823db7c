import type pg from 'pg'
import { applyChange } from '../issue-rules.ts'
import { type IssueRow, toIssue } from '../rows/issues.ts'
import type { Issue, TriageStore } from '../types.ts'
import { first, run, transaction } from './db.ts'

/** Triage writes on PostgreSQL: each issue read `FOR UPDATE`, changed by issue-rules.ts. */
export function pgTriage(pool: pg.Pool): TriageStore {
  return {
    triageIssues: (projectId, ids, change) =>
      transaction(pool, async (c) => {
        const out: Issue[] = []
        // Ascending ids: a stable lock order against a concurrent bulk change.
        for (const id of [...new Set(ids)].sort((a, b) => a - b)) {
          const row = await first<IssueRow>(
            c,
            'SELECT * FROM issues WHERE id = $1 AND project_id = $2 FOR UPDATE',
            [id, projectId],
          )
          if (row === undefined) continue
          const s = applyChange(toIssue(row), change)
          const updated = await first<IssueRow>(
            c,
            `UPDATE issues SET status = $1, for_review = $2, ignore_until = $3, ignore_until_seen = $4
             WHERE id = $5 RETURNING *`,
            [s.status, s.forReview ? 1 : 0, s.ignoreUntil, s.ignoreUntilSeen, id],
          )
          if (updated !== undefined) out.push(toIssue(updated))
        }
        // The caller lists them in its own order; keep the order the ids were given in.
        const order = new Map([...new Set(ids)].map((id, i) => [id, i]))
        return out.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0))
      }),
    expireIgnores: (now) =>
      run(
        pool,
        `UPDATE issues SET status = 'unresolved', for_review = 1, ignore_until = NULL,
           ignore_until_seen = NULL
         WHERE ignore_until <= $1 AND ignore_until IS NOT NULL AND status = 'ignored'`,
        [now],
      ),
    countForReview: async (projectId) =>
      (
        await first<{ n: number }>(
          pool,
          `SELECT COUNT(*) AS n FROM issues WHERE project_id = $1 AND status = 'unresolved' AND for_review = 1`,
          [projectId],
        )
      )?.n ?? 0,
  }
}
