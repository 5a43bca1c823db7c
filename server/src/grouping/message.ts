import type { NormalizedEvent } from '../event/types.ts'
import { parameterize } from './parameterize.ts'

/** How many non-empty lines of a message take part in grouping (protocol.md §8.6). */
const GROUPING_LINES = 2

/** Returns `text` unless it is missing or blank, so callers can chain fallbacks with `??`. */
export function nonBlank(text: string | undefined): string | undefined {
  return text === undefined || text.trim() === '' ? undefined : text
}

/**
 * Calls `visit` with each line of `text` (split at `\r\n`, `\r` or `\n`, as
 * `text.split(/\r\n|\r|\n/)` would) until it returns true. Scanning instead of splitting: an
 * exception value may be kilobytes long and only its first lines are wanted.
 */
export function eachLine(text: string, visit: (line: string) => boolean): void {
  let start = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c !== 10 && c !== 13) continue
    if (visit(text.slice(start, i))) return
    if (c === 13 && text.charCodeAt(i + 1) === 10) i++
    start = i + 1
  }
  visit(text.slice(start))
}

/** Keeps the first two non-empty lines, so appended dumps or payloads do not split a group. */
export function firstLines(text: string): string {
  const lines: string[] = []
  let more = false
  eachLine(text, (line) => {
    if (line.trim() === '') return false
    if (lines.length === GROUPING_LINES) more = true
    else lines.push(line)
    return more
  })
  const kept = lines.join('\n')
  return more ? `${kept}...` : kept
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
