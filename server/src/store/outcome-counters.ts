import { hourOf } from './hours.ts'
import type { WriteUnitResult } from './ingest-store.ts'
import type { EventToWrite, EventWriteResult, OutcomeDelta } from './model.ts'

/**
 * Sums the outcome increments of one group commit per counter (project, key, hour, outcome,
 * reason, category), so a backend writes one upsert per distinct counter instead of one per
 * item. `sorted()` gives them in key order: concurrent transactions then lock counter rows in
 * the same order and cannot deadlock on them.
 */
export class OutcomeCounters {
  private readonly byKey = new Map<string, OutcomeDelta>()

  /** Adds one increment (its time is truncated to the hour). */
  add(o: OutcomeDelta): void {
    const hour = hourOf(o.at)
    const k = `${o.projectId}\0${o.keyId}\0${hour}\0${o.outcome}\0${o.reason}\0${o.category}`
    const c = this.byKey.get(k)
    if (c === undefined) this.byKey.set(k, { ...o, at: hour })
    else c.quantity += o.quantity
  }

  /** The summed counters, `at` being the hour's start, in a stable key order. */
  sorted(): OutcomeDelta[] {
    return [...this.byKey.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, v]) => v)
  }
}

/**
 * An event's own outcome, decided where duplicates become known (inside the ingest
 * transaction, on every backend): a resend of a stored event is `duplicate` (Relay:
 * invalid/duplicate), anything else that reached the store is `accepted`.
 */
export const eventOutcome = (e: EventToWrite, r: EventWriteResult): OutcomeDelta => ({
  projectId: e.projectId,
  keyId: e.keyId,
  at: e.received,
  outcome: r.duplicate ? 'duplicate' : 'accepted',
  reason: '',
  category: 'error',
  quantity: 1,
})

/**
 * Puts a group's summed counters on its first result (`WriteUnitResult.outcomes`): the group
 * committer counts them for `/metrics` once the transaction committed, so the endpoint and the
 * outcomes table are fed by the same sums and cannot disagree.
 */
export function withOutcomes(
  results: WriteUnitResult[],
  outcomes: OutcomeDelta[],
): WriteUnitResult[] {
  const first = results[0]
  if (first !== undefined && outcomes.length > 0) first.outcomes = outcomes
  return results
}
