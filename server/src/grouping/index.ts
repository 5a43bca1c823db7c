/**
 * Issue grouping: which group an event belongs to, and how that group is labelled.
 * Strategies are versioned (`v1.ts`, …); the caller stores `version` next to `hash`, so a
 * future strategy can run beside the old one while existing groups migrate.
 */
import type { NormalizedEvent } from '../event/types.ts'
import { hashValues } from './hash.ts'
import { labelEvent } from './title.ts'
import { groupingV1 } from './v1.ts'

/** What the store records for an event's group. */
export interface GroupingResult {
  hash: string
  version: string
  title: string
  culprit: string
  metadata: { type?: string; value?: string }
  /**
   * The hash the event had before v1 reduced exception groups, when that differs from `hash`:
   * the store joins the event to the issue found under it when `hash` has none yet, so
   * issues stored before the change go on collecting their events.
   */
  previousHash?: string
}

/** The strategy new events are grouped with; stored with each hash. */
export const CURRENT_GROUPING_VERSION: string = 'v1'

/** Computes the group hash, title and culprit of an event with the current strategy. */
export function groupEvent(event: NormalizedEvent): GroupingResult {
  const v1 = groupingV1(event)
  const { title, culprit, metadata } = labelEvent(event, v1.main)
  const result: GroupingResult = {
    hash: hashValues(v1.values),
    version: CURRENT_GROUPING_VERSION,
    title,
    culprit,
    metadata,
  }
  if (v1.previousValues !== undefined) {
    const previous = hashValues(v1.previousValues)
    if (previous !== result.hash) result.previousHash = previous
  }
  return result
}
