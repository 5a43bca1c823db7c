import type Database from 'better-sqlite3'
import type { OutcomeFilter, OutcomeHourTotal, OutcomeStore, OutcomeTotal } from '../types.ts'

const HOUR = 3_600_000

/** `[since, until)` widened to whole hours: counters are kept per hour. */
function hourRange(f: OutcomeFilter): [number, number] {
  return [Math.floor(f.since / HOUR) * HOUR, Math.ceil(f.until / HOUR) * HOUR]
}

/** Outcome counter reads on SQLite (the table is written by ingest.ts). */
export function sqliteOutcomes(db: Database.Database): OutcomeStore {
  const totalsAll = db.prepare<[number, number, number], OutcomeTotal>(
    `SELECT outcome, reason, category, SUM(quantity) AS quantity FROM outcomes
     WHERE project_id = ? AND hour >= ? AND hour < ?
     GROUP BY outcome, reason, category ORDER BY outcome, reason, category`,
  )
  const totalsKeys = db.prepare<[number, number, number, string], OutcomeTotal>(
    `SELECT outcome, reason, category, SUM(quantity) AS quantity FROM outcomes
     WHERE project_id = ? AND hour >= ? AND hour < ? AND key_id IN (SELECT value FROM json_each(?))
     GROUP BY outcome, reason, category ORDER BY outcome, reason, category`,
  )
  const hoursAll = db.prepare<[number, number, number], OutcomeHourTotal>(
    `SELECT hour, outcome, reason, category, SUM(quantity) AS quantity FROM outcomes
     WHERE project_id = ? AND hour >= ? AND hour < ?
     GROUP BY hour, outcome, reason, category ORDER BY hour, outcome, reason, category`,
  )
  const hoursKeys = db.prepare<[number, number, number, string], OutcomeHourTotal>(
    `SELECT hour, outcome, reason, category, SUM(quantity) AS quantity FROM outcomes
     WHERE project_id = ? AND hour >= ? AND hour < ? AND key_id IN (SELECT value FROM json_each(?))
     GROUP BY hour, outcome, reason, category ORDER BY hour, outcome, reason, category`,
  )
  return {
    outcomeTotalsBy: async (projectId, f) => {
      const [since, until] = hourRange(f)
      return f.keyIds === undefined
        ? totalsAll.all(projectId, since, until)
        : totalsKeys.all(projectId, since, until, JSON.stringify(f.keyIds))
    },
    outcomeHours: async (projectId, f) => {
      const [since, until] = hourRange(f)
      return f.keyIds === undefined
        ? hoursAll.all(projectId, since, until)
        : hoursKeys.all(projectId, since, until, JSON.stringify(f.keyIds))
    },
  }
}
