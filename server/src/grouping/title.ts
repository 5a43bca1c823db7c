import type { NormalizedEvent } from '../event/types.ts'
import { crashFrame, primaryFrames } from './frames.ts'
import { displayMessage, eachLine, nonBlank } from './message.ts'

/** How an issue is labelled in lists: independent of the grouping version. */
export interface EventLabels {
  title: string
  culprit: string
  metadata: { type?: string; value?: string }
}

/** Relay caps the culprit at 200 characters; the title gets the same budget. */
const TITLE_MAX = 200
const CULPRIT_MAX = 200
const METADATA_VALUE_MAX = 1024

/** Cuts `text` to at most `max` characters, marking the cut with an ellipsis. */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}

function firstLine(text: string): string {
  let first = ''
  eachLine(text, (line) => {
    first = line.trim()
    return first !== ''
  })
  return first
}

function title(
  event: NormalizedEvent,
  type: string | undefined,
  value: string | undefined,
): string {
  if (type !== undefined && value !== undefined) return `${type}: ${firstLine(value)}`
  if (type !== undefined) return type
  if (value !== undefined) return firstLine(value)
  const message = displayMessage(event)
  return message === undefined ? '<unlabeled event>' : firstLine(message)
}

/**
 * Sentry's rule: the event's `transaction` when it has one (a web framework's integration names
 * it after the route, e.g. `GET /orders/:id`), else "location in function" of the crash frame.
 */
function culprit(event: NormalizedEvent): string {
  const transaction = nonBlank(event.transaction)
  if (transaction !== undefined) return transaction
  const frame = crashFrame(primaryFrames(event))
  const location = nonBlank(frame?.module) ?? nonBlank(frame?.filename)
  const fn = nonBlank(frame?.function) ?? nonBlank(frame?.raw_function)
  if (location !== undefined) return `${location} in ${fn ?? '?'}`
  return fn ?? ''
}

/** Title, culprit and metadata of an event, taken from its primary (last) exception if any. */
export function labelEvent(event: NormalizedEvent): EventLabels {
  const primary = event.exception?.values.at(-1)
  const type = nonBlank(primary?.type)
  const value = nonBlank(primary?.value)
  const metadata: EventLabels['metadata'] = {}
  if (type !== undefined) metadata.type = type
  if (value !== undefined) metadata.value = truncate(value, METADATA_VALUE_MAX)
  return {
    title: truncate(title(event, type, value), TITLE_MAX),
    culprit: truncate(culprit(event), CULPRIT_MAX),
    metadata,
  }
}
