import type { NormalizedEvent } from '../event/types.ts'
import { parameterize } from './parameterize.ts'

/** How many non-empty lines of a message take part in grouping (protocol.md §8.6). */
const GROUPING_LINES = 2

/** Returns `text` unless it is missing or blank, so callers can chain fallbacks with `??`. */
export function nonBlank(text: string | undefined): string | undefined {
  return text === undefined || text.trim() === '' ? undefined : text
}

/** Keeps the first two non-empty lines, so appended dumps or payloads do not split a group. */
export function firstLines(text: string): string {
  const lines = text.split(/\r\n|\r|\n/).filter((line) => line.trim() !== '')
  const kept = lines.slice(0, GROUPING_LINES).join('\n')
  return lines.length > GROUPING_LINES ? `${kept}...` : kept
}

/** The form of a message or exception value that enters the group hash. */
export function normalizeMessage(text: string): string {
  return parameterize(firstLines(text))
}

/** The message to group by: the template (Python logging) if sent, else the rendered text. */
export function groupingMessage(event: NormalizedEvent): string | undefined {
  return nonBlank(event.logentry?.message) ?? nonBlank(event.logentry?.formatted)
}

/** The message to show: the rendered text if sent, else the template. */
export function displayMessage(event: NormalizedEvent): string | undefined {
  return nonBlank(event.logentry?.formatted) ?? nonBlank(event.logentry?.message)
}
