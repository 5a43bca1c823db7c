import { HOUR } from '../hours.ts'
import type { OutcomeTotal } from '../model.ts'
import type { OutcomeFilter, OutcomeHourTotal, OutcomeStore } from '../quota-store.ts'
import { inList } from '../sql/in-list.ts'
import type { SqlPort } from '../sql/port.ts'
import { sql } from '../sql/statement.ts'

/**
 * Most rows of outcome totals one read answers (docs/outcomes.md), the largest quantities:
 * ingest keeps reasons and categories to known names, but counters written before it did (a
 * made-up item type or client report reason each) stay until retention drops them.
 */
export const OUTCOME_TOTALS_LIMIT = 1000

/** `[since, until)` widened to whole hours: counters are kept per hour. */
function hourRange(f: OutcomeFilter): [number, number] {
  return [Math.floor(f.since / HOUR) * HOUR, Math.ceil(f.until / HOUR) * HOUR]
}

/** Outcome counter reads, written once (the table is written by each backend's ingest.ts). */
export function outcomeQueries(db: SqlPort): OutcomeStore {
  const where = (projectId: number, f: OutcomeFilter) => {
    const [since, until] = hourRange(f)
    const keys =
      f.keyIds === undefined ? sql`` : sql`AND ${inList(db.dialect, 'key_id', f.keyIds, 'bigint')}`
    return sql`project_id = ${projectId} AND hour >= ${since} AND hour < ${until} ${keys}`
  }
  return {
    outcomeTotalsBy: (projectId, f) =>
      db.all<OutcomeTotal>(
        sql`SELECT * FROM (SELECT outcome, reason, category, SUM(quantity) AS quantity
            FROM outcomes WHERE ${where(projectId, f)} GROUP BY outcome, reason, category
            ORDER BY SUM(quantity) DESC, outcome, reason, category
            LIMIT ${OUTCOME_TOTALS_LIMIT}) shown ORDER BY outcome, reason, category`,
      ),
    // Per hour, outcome and category only: the chart sums the reasons.
    outcomeHours: (projectId, f) =>
      db.all<OutcomeHourTotal>(
        sql`SELECT hour, outcome, category, SUM(quantity) AS quantity FROM outcomes
            WHERE ${where(projectId, f)} GROUP BY hour, outcome, category
            ORDER BY hour, outcome, category`,
      ),
  }
}
