import type { NormalizedEvent } from '../../src/event/types.ts'

/**
 * A normalised event with the fields every one has, and `fields` over them: the grouping and
 * labelling tests build their cases from it.
 */
export function normalizedEvent(fields: Partial<NormalizedEvent>): NormalizedEvent {
  return {
    event_id: 'a'.repeat(32),
    timestamp: 1,
    platform: 'python',
    level: 'error',
    tags: [],
    ...fields,
  }
}
