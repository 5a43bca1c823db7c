/**
 * Grouping strategy v1 (protocol.md §8, in spirit): the first of exception chain, thread,
 * event stack trace and message that contributes anything decides the group. The returned
 * values start with the name of what decided, so two strategies can never produce one hash.
 */
import type { ExceptionValue, Frame, NormalizedEvent } from '../event/types.ts'
import { hasExceptionGroup, reduceExceptionGroups } from './exception-groups.ts'
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

/**
 * The exception chain's part of v1: its values (none when nothing in it contributes), the
 * values v1 gave it before it reduced exception groups when the reduction applied
 * (`unreduced`: every exception in list order), and the exception that names the issue when
 * the groups reduced to one distinct member (`main`).
 */
interface ChainGrouping {
  values: string[] | undefined
  unreduced?: string[] | undefined
  main?: number | undefined
}

function chainGrouping(event: NormalizedEvent): ChainGrouping {
  const chain = event.exception?.values ?? []
  if (chain.length === 0) return { values: undefined }
  if (isCapturedMessage(chain)) {
    return { values: messageValues(groupingMessage(event) ?? nonBlank(chain.at(-1)?.value)) }
  }
  const parts = exceptionParts(event, chain)
  const flat = (order: Iterable<number>): string[] | undefined => {
    const values: string[] = []
    for (const i of order) values.push(...(parts[i] ?? []))
    return values.length === 0 ? undefined : values
  }
  const reduced = reduceExceptionGroups(chain, (i) => (parts[i] ?? []).join('\n'))
  if (reduced === undefined) return { values: flat(parts.keys()) }
  return { values: flat(reduced.order), unreduced: flat(parts.keys()), main: reduced.main }
}

/** The values of the first strategy that contributes (`chain`: the chain's), else the fallback. */
function defaultValues(event: NormalizedEvent, chain: string[] | undefined): string[] {
  if (chain !== undefined) return chain
  const threads = threadFrames(event)
  return (
    (threads === undefined ? undefined : stackValues('threads', threads, event.platform)) ??
    stackValues('stacktrace', event.stacktrace?.frames ?? [], event.platform) ??
    messageValues(groupingMessage(event)) ?? ['fallback'] // one shared group for the rest
  )
}

/** What v1 makes of an event: the values hashed for its group, and what names its issue. */
export interface GroupingV1 {
  /** The ordered values whose hash is the event's group. */
  values: string[]
  /**
   * The values v1 hashed before it reduced exception groups (exception-groups.ts), when the
   * reduction applied: the hash issues of such events were stored under.
   */
  previousValues?: string[]
  /** The exception of the chain that names the issue, when not the last one. */
  main?: number
}

/** Groups an event under v1 (fingerprint, else chain, threads, stack trace, message). */
export function groupingV1(event: NormalizedEvent): GroupingV1 {
  const plan = planFingerprint(event)
  if (plan.kind === 'custom') {
    const values = ['fingerprint', ...plan.values.map((value) => `fingerprint:${value}`)]
    // The chain decides nothing here, but a lone member of a group still names the issue.
    const chain = event.exception?.values ?? []
    const main = hasExceptionGroup(chain) ? chainGrouping(event).main : undefined
    return main === undefined ? { values } : { values, main }
  }
  const extras = plan.kind === 'hybrid' ? plan.extras.map((extra) => `fingerprint:${extra}`) : []
  const wrap = (values: string[]) =>
    plan.kind === 'default' ? values : ['hybrid', ...values, ...extras]
  const chain = chainGrouping(event)
  const out: GroupingV1 = { values: wrap(defaultValues(event, chain.values)) }
  if (chain.unreduced !== undefined)
    out.previousValues = wrap(defaultValues(event, chain.unreduced))
  if (chain.main !== undefined) out.main = chain.main
  return out
}

/** The ordered values whose hash is the group of `event` under v1 (exposed for tests/debugging). */
export function groupingValuesV1(event: NormalizedEvent): string[] {
  return groupingV1(event).values
}
