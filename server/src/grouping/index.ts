/**
 * Issue grouping: which group an event belongs to, and how that group is labelled.
 * Strategies are versioned (`strategies.ts`); the caller stores `version` next to `hash`, and
 * the previous strategy's hash finds the issues stored under it while groups migrate.
 */
import type { NormalizedEvent } from '../event/types.ts'
import { hashValues } from './hash.ts'
import { groupingValues } from './strategies.ts'
import { labelEvent } from './title.ts'

/** What the store records for an event's group. */
export interface GroupingResult {
  hash: string
  version: string
  title: string
  culprit: string
  metadata: { type?: string; value?: string }
  /**
   * The hash the event had under v1 (before source lines counted), or before v1 reduced
   * exception groups, when that differs from `hash`: the store joins the event to the issue
   * found under it when `hash` has none yet, so issues stored before the change go on
   * collecting their events.
   */
  previousHash?: string
}

/** The strategy new events are grouped with; stored with each hash. */
export const CURRENT_GROUPING_VERSION: string = 'v2'

/** Computes the group hash, title and culprit of an event with the current strategy. */
export function groupEvent(event: NormalizedEvent): GroupingResult {
  const grouped = groupingValues(event)
  const { title, culprit, metadata } = labelEvent(event, grouped.main)
  const result: GroupingResult = {
    hash: hashValues(grouped.values),
    version: CURRENT_GROUPING_VERSION,
    title,
    culprit,
    metadata,
  }
  if (grouped.previousValues !== undefined) {
    const previous = hashValues(grouped.previousValues)
    if (previous !== result.hash) result.previousHash = previous
  }
  return result
}
