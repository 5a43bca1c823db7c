import type { OutcomeTotal, Quota } from './model.ts'

/** Event quotas and the dedupe probe the quota check needs. */
export interface QuotaStore {
  getQuota(projectId: number): Promise<Quota | null>
  setQuota(projectId: number, quota: Quota | null): Promise<void>
  /** Which of these event ids the project already stored (one indexed read). */
  existingEventIds(projectId: number, eventIds: readonly string[]): Promise<Set<string>>
}

/** Which outcome counters to read: a time range (ms, whole hours) and optionally some keys. */
export interface OutcomeFilter {
  since: number
  until: number
  /** Only counters of these key ids (0 = requests with no valid key); undefined = all. */
  keyIds?: number[] | undefined
}

/** Summed outcome counters of one hour (`hour` = its start, ms), over all their reasons. */
export interface OutcomeHourTotal extends Omit<OutcomeTotal, 'reason'> {
  hour: number
}

/** Outcome counter reads for the Outcomes view. */
export interface OutcomeStore {
  outcomeTotalsBy(projectId: number, filter: OutcomeFilter): Promise<OutcomeTotal[]>
  outcomeHours(projectId: number, filter: OutcomeFilter): Promise<OutcomeHourTotal[]>
}
