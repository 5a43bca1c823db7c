/** Rows removed by one retention batch, per kind (retention.ts). */
export interface PruneResult {
  events: number
  sessions: number
  outcomes: number
  /**
   * Rows a backend keeps beside its events and removes with them, if any: the issue chart's
   * hours (`issue_hours`), PostgreSQL's idempotency keys (`event_ids`). Counted so the sweep
   * goes on while they have a backlog, even after the events themselves are gone.
   */
  derived?: number
}

/**
 * Removes data older than the retention cutoff in small batches: events (issues and their
 * `times_seen` stay), single health sessions and their hourly rollups, outcome counters.
 */
export interface RetentionStore {
  /** Deletes at most `limit` rows of each kind older than `cutoff` (epoch ms). */
  pruneBefore(cutoff: number, limit: number): Promise<PruneResult>
}
