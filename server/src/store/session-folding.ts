import { hourOf } from './hours.ts'
import { categoryRank, type SessionUpdate } from './release-health-types.ts'

/** The stored state of one session (a `health_sessions` row), as the folding rule sees it. */
export interface StoredSession {
  release: string
  environment: string
  /** The hour the session started in: the rollup row it is counted in, for ever. */
  hour: number
  did: string | null
  /** Rank of its worst category so far. */
  category: number
  status: string
  errors: number
  updated: number
}

/** The outcome of folding one update: the row to store and how the hourly rollups move. */
export interface SessionFold {
  row: StoredSession
  /** Sessions added to the rollup of `row.hour` (1 for a new session id, else 0). */
  newSessions: number
  /** Per-category change of that rollup (`[rank]: +1`, previous rank `-1`), or none. */
  moved: { from: number | null; to: number } | null
}

/**
 * Release health's folding rule, decided in code so every backend applies the same one (the
 * stores only read the session row and write the result, inside the ingest transaction): a
 * session id is counted once, in the hour it started; a later update only moves it to a worse
 * category (crashed beats errored beats healthy) and never back, so duplicates and
 * out-of-order updates give the same figures (Relay's session aggregation rules).
 */
export function foldSession(old: StoredSession | undefined, s: SessionUpdate): SessionFold {
  const rank = categoryRank(s.category)
  if (old === undefined) {
    return {
      row: {
        release: s.release,
        environment: s.environment,
        hour: hourOf(s.started),
        did: s.did,
        category: rank,
        status: s.status,
        errors: s.errors,
        updated: s.timestamp,
      },
      newSessions: 1,
      moved: { from: null, to: rank },
    }
  }
  const category = Math.max(old.category, rank)
  return {
    row: {
      ...old,
      did: old.did ?? s.did,
      category,
      status: rank >= old.category ? s.status : old.status,
      errors: Math.max(old.errors, s.errors),
      updated: Math.max(old.updated, s.timestamp),
    },
    newSessions: 0,
    moved: category !== old.category ? { from: old.category, to: category } : null,
  }
}
