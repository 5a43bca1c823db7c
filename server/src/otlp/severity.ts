import type { Level } from '../event/types.ts'

/**
 * OTLP severity → event level (protocol.md §10, Relay's mapping): by `severity_number` when it
 * is 1–24, else by `severity_text`. Texts are the OpenTelemetry short names (`ERROR`, `ERROR2`,
 * …, any case) plus the common syslog/logging synonyms collectors pass through unmapped.
 */
const NUMBER_LEVELS: readonly [number, Level][] = [
  [4, 'debug'], // TRACE..TRACE4
  [8, 'debug'], // DEBUG..DEBUG4
  [12, 'info'],
  [16, 'warning'],
  [20, 'error'],
  [24, 'fatal'],
]

const TEXT_LEVELS: Record<string, Level> = {
  trace: 'debug',
  debug: 'debug',
  info: 'info',
  information: 'info',
  notice: 'info',
  warn: 'warning',
  warning: 'warning',
  error: 'error',
  err: 'error',
  fatal: 'fatal',
  critical: 'fatal',
  crit: 'fatal',
  alert: 'fatal',
  emerg: 'fatal',
  emergency: 'fatal',
  panic: 'fatal',
}

/** The level of a record; unknown severities are `info` (Relay's default). */
export function severityLevel(severityNumber: number, severityText: string): Level {
  if (Number.isInteger(severityNumber) && severityNumber >= 1 && severityNumber <= 24) {
    return NUMBER_LEVELS.find(([max]) => severityNumber <= max)?.[1] ?? 'info'
  }
  const word = severityText
    .trim()
    .toLowerCase()
    .replace(/[234]$/, '')
  return Object.hasOwn(TEXT_LEVELS, word) ? (TEXT_LEVELS[word] ?? 'info') : 'info'
}

/** Whether a record is of error severity: such records become events, the rest are counted. */
export function isErrorSeverity(severityNumber: number, severityText: string): boolean {
  const level = severityLevel(severityNumber, severityText)
  return level === 'error' || level === 'fatal'
}
