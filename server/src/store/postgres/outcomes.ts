import type pg from 'pg'
import type { OutcomeFilter, OutcomeHourTotal, OutcomeStore, OutcomeTotal } from '../types.ts'
import { all } from './db.ts'

const HOUR = 3_600_000

/** `[since, until)` widened to whole hours: counters are kept per hour. */
function hourRange(f: OutcomeFilter): [number, number] {
  return [Math.floor(f.since / HOUR) * HOUR, Math.ceil(f.until / HOUR) * HOUR]
}

/** Outcome counter reads on PostgreSQL (the table is written by ingest.ts). */
export function pgOutcomes(pool: pg.Pool): OutcomeStore {
  const read = <T>(by: string, projectId: number, f: OutcomeFilter): Promise<T[]> => {
    const [since, until] = hourRange(f)
    const keys = f.keyIds === undefined ? '' : 'AND key_id = ANY($4::bigint[])'
    const params: unknown[] = [projectId, since, until]
    if (f.keyIds !== undefined) params.push(f.keyIds)
    return all<T>(
      pool,
      `SELECT ${by}outcome, reason, category, SUM(quantity) AS quantity FROM outcomes
       WHERE project_id = $1 AND hour >= $2 AND hour < $3 ${keys}
       GROUP BY ${by}outcome, reason, category ORDER BY ${by}outcome, reason, category`,
      params,
    )
  }
  return {
    outcomeTotalsBy: (projectId, f) => read<OutcomeTotal>('', projectId, f),
    outcomeHours: (projectId, f) => read<OutcomeHourTotal>('hour, ', projectId, f),
  }
}
