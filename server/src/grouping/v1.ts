/**
 * Grouping strategy v1 (protocol.md §8, in spirit): the first of exception chain, thread,
 * event stack trace and message that contributes anything decides the group. The returned
 * values start with the name of what decided, so two strategies can never produce one hash.
 */
import type { ExceptionValue, Frame, NormalizedEvent } from '../event/types.ts'
import { planFingerprint } from './fingerprint.ts'
import { type FrameKey, stackKeys, threadFrames, type Variant } from './frames.ts'
import { groupingMessage, nonBlank, normalizeMessage } from './message.ts'

function frameValue(key: FrameKey): string {
  return `frame:${JSON.stringify(key)}`
}

/** `app` if any in-app frame of the given stacks contributes, else `system` (all frames). */
function variantOf(stacks: readonly (readonly Frame[])[], platform: string): Variant {
  return stacks.some((frames) => stackKeys(frames, 'app', platform).length > 0) ? 'app' : 'system'
}

function stackValues(
  kind: string,
  frames: readonly Frame[],
  platform: string,
): string[] | undefined {
  const keys = stackKeys(frames, variantOf([frames], platform), platform)
  return keys.length === 0 ? undefined : [kind, ...keys.map(frameValue)]
}

function messageValues(text: string | undefined): string[] | undefined {
  return text === undefined ? undefined : ['message', `message:${normalizeMessage(text)}`]
}

/** Type (unless synthetic), then the frames, or the value when no frame contributes. */
function exceptionValues(exception: ExceptionValue, variant: Variant, platform: string): string[] {
  const values: string[] = []
  const type = nonBlank(exception.type)
  if (type !== undefined && exception.mechanism?.synthetic !== true) values.push(`type:${type}`)
  const keys = stackKeys(exception.stacktrace?.frames ?? [], variant, platform)
  const value = nonBlank(exception.value)
  if (keys.length > 0) values.push(...keys.map(frameValue))
  else if (value !== undefined) values.push(`value:${normalizeMessage(value)}`)
  return values.length === 0 ? [] : ['exception', ...values]
}

/**
 * A chain made only of synthetic exceptions without a type is a captured message (JS SDK v11
 * attaches one with the message as value): it groups like the message, wherever it was sent.
 */
function isCapturedMessage(chain: readonly ExceptionValue[]): boolean {
  return chain.every((e) => e.mechanism?.synthetic === true && nonBlank(e.type) === undefined)
}

function chainValues(event: NormalizedEvent): string[] | undefined {
  const chain = event.exception?.values ?? []
  if (chain.length === 0) return undefined
  if (isCapturedMessage(chain)) {
    return messageValues(groupingMessage(event) ?? nonBlank(chain.at(-1)?.value))
  }
  const stacks = chain.map((exception) => exception.stacktrace?.frames ?? [])
  const variant = variantOf(stacks, event.platform)
  const values = chain.flatMap((exception) => exceptionValues(exception, variant, event.platform))
  return values.length === 0 ? undefined : values
}

/** The values of the first strategy that contributes, else the shared fallback. */
function defaultValues(event: NormalizedEvent): string[] {
  const threads = threadFrames(event)
  return (
    chainValues(event) ??
    (threads === undefined ? undefined : stackValues('threads', threads, event.platform)) ??
    stackValues('stacktrace', event.stacktrace?.frames ?? [], event.platform) ??
    messageValues(groupingMessage(event)) ?? ['fallback'] // one shared group for the rest
  )
}

/** The ordered values whose hash is the group of `event` under v1 (exposed for tests/debugging). */
export function groupingValuesV1(event: NormalizedEvent): string[] {
  const plan = planFingerprint(event)
  if (plan.kind === 'custom') {
    return ['fingerprint', ...plan.values.map((value) => `fingerprint:${value}`)]
  }
  const values = defaultValues(event)
  if (plan.kind === 'default') return values
  return ['hybrid', ...values, ...plan.extras.map((extra) => `fingerprint:${extra}`)]
}
