/**
 * Grouping strategy v1 (protocol.md §8, in spirit): the first of exception chain, thread,
 * event stack trace and message that contributes anything decides the group. The returned
 * values start with the name of what decided, so two strategies can never produce one hash.
 */
import type { ExceptionValue, Frame, NormalizedEvent } from '../event/types.ts'
import { reduceExceptionGroups } from './exception-groups.ts'
import { planFingerprint } from './fingerprint.ts'
import { type FrameKey, stackKeys, threadFrames } from './frames.ts'
import { groupingMessage, nonBlank, normalizeMessage } from './message.ts'

/**
 * `frame:` and the key as JSON, written out: the same text as `JSON.stringify(key)` for the keys
 * `frameKey` builds (`module` or `filename`, then `function`; insertion order), without the
 * generic object serialiser, once per frame of every event. The hash covers this text, so it
 * must stay byte-identical (`index.test.ts` pins it).
 */
function frameValue(key: FrameKey): string {
  let text = 'frame:{'
  let comma = ''
  if (key.module !== undefined) {
    text += `"module":${JSON.stringify(key.module)}`
    comma = ','
  }
  if (key.filename !== undefined) {
    text += `${comma}"filename":${JSON.stringify(key.filename)}`
    comma = ','
  }
  if (key.function !== undefined) text += `${comma}"function":${JSON.stringify(key.function)}`
  return `${text}}`
}

/** The in-app keys of each stack, computed once: they decide the variant and are reused for it. */
function appKeysOf(stacks: readonly (readonly Frame[])[], platform: string): FrameKey[][] {
  return stacks.map((frames) => stackKeys(frames, 'app', platform))
}

function stackValues(
  kind: string,
  frames: readonly Frame[],
  platform: string,
): string[] | undefined {
  const appKeys = stackKeys(frames, 'app', platform)
  const keys = appKeys.length > 0 ? appKeys : stackKeys(frames, 'system', platform)
  return keys.length === 0 ? undefined : [kind, ...keys.map(frameValue)]
}

function messageValues(text: string | undefined): string[] | undefined {
  return text === undefined ? undefined : ['message', `message:${normalizeMessage(text)}`]
}

/**
 * Appends `exception`, the type (unless synthetic), then the frames (`keys`), or the value when
 * no frame contributes; nothing when none of them does. Appends to one list for the whole chain
 * rather than returning a list per exception to be flattened.
 */
function pushExceptionValues(
  out: string[],
  exception: ExceptionValue,
  keys: readonly FrameKey[],
): void {
  const start = out.length
  out.push('exception')
  const type = nonBlank(exception.type)
  if (type !== undefined && exception.mechanism?.synthetic !== true) out.push(`type:${type}`)
  if (keys.length > 0) {
    for (const key of keys) out.push(frameValue(key))
  } else {
    const value = nonBlank(exception.value)
    if (value !== undefined) out.push(`value:${normalizeMessage(value)}`)
  }
  if (out.length === start + 1) out.length = start
}

/**
 * A chain made only of synthetic exceptions without a type is a captured message (JS SDK v11
 * attaches one with the message as value): it groups like the message, wherever it was sent.
 */
function isCapturedMessage(chain: readonly ExceptionValue[]): boolean {
  return chain.every((e) => e.mechanism?.synthetic === true && nonBlank(e.type) === undefined)
}

/**
 * What each exception of the chain contributes (`pushExceptionValues`), under one variant for
 * the whole chain: `app` if any in-app frame of the chain contributes, else `system`.
 */
function exceptionParts(event: NormalizedEvent, chain: readonly ExceptionValue[]): string[][] {
  const stacks = chain.map((exception) => exception.stacktrace?.frames ?? [])
  const appKeys = appKeysOf(stacks, event.platform)
  const app = appKeys.some((keys) => keys.length > 0)
  return chain.map((exception, i) => {
    const keys = app ? appKeys[i] : stackKeys(stacks[i] ?? [], 'system', event.platform)
    const part: string[] = []
    pushExceptionValues(part, exception, keys ?? [])
    return part
  })
}

/** The chain's exception groups reduced (exception-groups.ts) over each exception's own values. */
function reduceChain(parts: readonly string[][], chain: readonly ExceptionValue[]) {
  return reduceExceptionGroups(chain, (i) => (parts[i] ?? []).join('\n'))
}

/** Whether the event's chain holds an exception group (only then can reducing change anything). */
export function hasExceptionGroup(event: NormalizedEvent): boolean {
  const chain = event.exception?.values ?? []
  return chain.length > 1 && chain.some((e) => e.mechanism?.is_exception_group === true)
}

function chainValues(event: NormalizedEvent, reduce: boolean): string[] | undefined {
  const chain = event.exception?.values ?? []
  if (chain.length === 0) return undefined
  if (isCapturedMessage(chain)) {
    return messageValues(groupingMessage(event) ?? nonBlank(chain.at(-1)?.value))
  }
  const parts = exceptionParts(event, chain)
  const order = (reduce ? reduceChain(parts, chain)?.order : undefined) ?? parts.keys()
  const values: string[] = []
  for (const i of order) values.push(...(parts[i] ?? []))
  return values.length === 0 ? undefined : values
}

/**
 * The exception an issue is named after when the event's exception groups reduce to one
 * distinct member (`reduceExceptionGroups`), whatever decides the group; else `undefined` (the
 * chain's last exception names it).
 */
export function mainExceptionV1(event: NormalizedEvent): number | undefined {
  if (!hasExceptionGroup(event)) return undefined
  const chain = event.exception?.values ?? []
  return reduceChain(exceptionParts(event, chain), chain)?.main
}

/** The values of the first strategy that contributes, else the shared fallback. */
function defaultValues(event: NormalizedEvent, reduce: boolean): string[] {
  const chain = chainValues(event, reduce)
  if (chain !== undefined) return chain
  const threads = threadFrames(event)
  return (
    (threads === undefined ? undefined : stackValues('threads', threads, event.platform)) ??
    stackValues('stacktrace', event.stacktrace?.frames ?? [], event.platform) ??
    messageValues(groupingMessage(event)) ?? ['fallback'] // one shared group for the rest
  )
}

/**
 * The ordered values whose hash is the group of `event` under v1 (exposed for tests/debugging).
 * `reduceGroups: false`: as v1 grouped before it reduced exception groups (exception-groups.ts),
 * each exception of the chain in list order — the hash issues of such events were stored under.
 */
export function groupingValuesV1(event: NormalizedEvent, reduceGroups = true): string[] {
  const plan = planFingerprint(event)
  if (plan.kind === 'custom') {
    return ['fingerprint', ...plan.values.map((value) => `fingerprint:${value}`)]
  }
  const values = defaultValues(event, reduceGroups)
  if (plan.kind === 'default') return values
  return ['hybrid', ...values, ...plan.extras.map((extra) => `fingerprint:${extra}`)]
}
