import { HOUR } from '../hours.ts'
import type { OutcomeTotal } from '../model.ts'
import type { OutcomeFilter, OutcomeHourTotal, OutcomeStore } from '../quota-store.ts'
import { inList } from '../sql/in-list.ts'
import type { SqlPort } from '../sql/port.ts'
import { raw, sql } from '../sql/statement.ts'

/** `[since, until)` widened to whole hours: counters are kept per hour. */
function hourRange(f: OutcomeFilter): [number, number] {
  return [Math.floor(f.since / HOUR) * HOUR, Math.ceil(f.until / HOUR) * HOUR]
}

/** Outcome counter reads, written once (the table is written by each backend's ingest.ts). */
export function outcomeQueries(db: SqlPort): OutcomeStore {
  const read = <T>(by: string, projectId: number, f: OutcomeFilter): Promise<T[]> => {
    const [since, until] = hourRange(f)
    const keys =
      f.keyIds === undefined ? sql`` : sql`AND ${inList(db.dialect, 'key_id', f.keyIds, 'bigint')}`
    const cols = raw(`${by}outcome, reason, category`)
    return db.all<T>(
      sql`SELECT ${cols}, SUM(quantity) AS quantity FROM outcomes
          WHERE project_id = ${projectId} AND hour >= ${since} AND hour < ${until} ${keys}
          GROUP BY ${cols} ORDER BY ${cols}`,
    )
  }
  return {
    outcomeTotalsBy: (projectId, f) => read<OutcomeTotal>('', projectId, f),
    outcomeHours: (projectId, f) => read<OutcomeHourTotal>('hour, ', projectId, f),
  }
}
