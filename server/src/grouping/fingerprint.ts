import type { NormalizedEvent } from '../event/types.ts'
import { crashFrame, primaryFrames } from './frames.ts'
import { displayMessage, nonBlank } from './message.ts'
import { parameterize } from './parameterize.ts'

/** How the SDK's `fingerprint` combines with default grouping (protocol.md §8.2). */
export type FingerprintPlan =
  | { kind: 'default' }
  | { kind: 'hybrid'; extras: string[] }
  | { kind: 'custom'; values: string[] }

/** `{{ default }}`, spaces inside the braces optional. */
const DEFAULT_ENTRY = /^\s*\{\{\s*default\s*\}\}\s*$/
/** `{{ name }}` anywhere in an entry, so `db-{{ tags.shard }}` works too. */
const VARIABLE = /\{\{\s*([^\s{}]+)\s*\}\}/g

/** The event's message as fingerprint variables and literal entries see it. */
function fingerprintMessage(event: NormalizedEvent): string | undefined {
  return displayMessage(event) ?? nonBlank(event.exception?.values.at(-1)?.value)
}

/** Value of one `{{ name }}`; a placeholder when the event lacks it, so the entry stays stable. */
export function resolveVariable(name: string, event: NormalizedEvent): string {
  const primary = event.exception?.values.at(-1)
  const frame = crashFrame(primaryFrames(event))
  switch (name.toLowerCase()) {
    case 'type':
    case 'error.type':
      return nonBlank(primary?.type) ?? '<no-type>'
    case 'value':
    case 'error.value':
      return nonBlank(primary?.value) ?? '<no-value>'
    case 'message':
      return fingerprintMessage(event) ?? '<no-message>'
    case 'function':
    case 'stack.function':
      return nonBlank(frame?.function) ?? '<no-function>'
    case 'module':
    case 'stack.module':
      return nonBlank(frame?.module) ?? '<no-module>'
    case 'path':
    case 'stack.abs_path':
      return nonBlank(frame?.abs_path) ?? nonBlank(frame?.filename) ?? '<no-abs-path>'
    case 'stack.filename':
      return nonBlank(frame?.filename) ?? '<no-filename>'
    case 'package':
    case 'stack.package':
      return nonBlank(frame?.package) ?? '<no-package>'
    case 'level':
      return event.level
    case 'logger':
      return nonBlank(event.logger) ?? '<no-logger>'
    case 'transaction':
      return nonBlank(event.transaction) ?? '<no-transaction>'
  }
  if (name.toLowerCase().startsWith('tags.')) {
    const key = name.slice('tags.'.length)
    return event.tags.find(([k]) => k === key)?.[1] ?? `<no-value-for-tag-${key}>`
  }
  return `<unrecognized-variable-${name}>`
}

/**
 * Resolves the variables of one entry. A literal entry equal to the event's message is
 * parameterised: SDK integrations that fingerprint by message would otherwise split per value.
 */
export function resolveEntry(entry: string, event: NormalizedEvent): string {
  if (!entry.includes('{{')) {
    return entry === fingerprintMessage(event) ? parameterize(entry) : entry
  }
  return entry.replace(VARIABLE, (_match, name: string) => resolveVariable(name, event))
}

/** Classifies and resolves the event's fingerprint; absent, `[]` or only `{{ default }}` → default. */
export function planFingerprint(event: NormalizedEvent): FingerprintPlan {
  const entries = event.fingerprint ?? []
  const extras = entries.filter((entry) => !DEFAULT_ENTRY.test(entry))
  if (extras.length === 0) return { kind: 'default' }
  const resolved = extras.map((entry) => resolveEntry(entry, event))
  return extras.length < entries.length
    ? { kind: 'hybrid', extras: resolved }
    : { kind: 'custom', values: resolved }
}
