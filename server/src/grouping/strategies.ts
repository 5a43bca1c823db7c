/**
 * Grouping strategies v1 and v2 (protocol.md §8, in spirit): the first of exception chain,
 * thread, event stack trace and message that contributes anything decides the group. The
 * returned values start with the name of what decided, so two strategies can never produce one
 * hash. v2 adds each frame's source line where Sentry reads it (`frames.ts` `FrameKey.context`:
 * Python, JavaScript, PHP, Ruby), so two errors thrown from different lines of one function are
 * two issues; v1 is kept to find the issues stored under it.
 */
import type { ExceptionValue, Frame, NormalizedEvent } from '../event/types.ts'
import { hasExceptionGroup, reduceExceptionGroups } from './exception-groups.ts'
import { type FingerprintPlan, planFingerprint } from './fingerprint.ts'
import { type FrameKey, stackKeys, threadFrames, type Variant } from './frames.ts'
import { groupingMessage, nonBlank, normalizeMessage } from './message.ts'

/**
 * One run of a strategy over an event: which version's frame values it writes, the stack keys
 * it computed (a second run over the same event reuses them), and whether any key had a source
 * line (when none had, v1's values are v2's without their first item).
 */
interface Run {
  context: boolean
  keys: Map<readonly Frame[], { app?: FrameKey[]; system?: FrameKey[] }>
  sawContext: boolean
}

/** The keys of a stack for a variant, computed once per event. */
function keysOf(run: Run, frames: readonly Frame[], variant: Variant, platform: string) {
  let cached = run.keys.get(frames)
  if (cached === undefined) {
    cached = {}
    run.keys.set(frames, cached)
  }
  let keys = cached[variant]
  if (keys === undefined) {
    keys = stackKeys(frames, variant, platform)
    cached[variant] = keys
    if (!run.sawContext && keys.some((k) => k.context !== undefined)) run.sawContext = true
  }
  return keys
}

/**
 * `frame:` and the key as JSON, written out: the same text as `JSON.stringify` of the key's
 * `module` or `filename`, then `function` (unless v2's source line stands for it), then v2's
 * `context`, without the generic object serialiser, once per frame of every event. The hash
 * covers this text, so it must stay byte-identical (`index.test.ts` pins it).
 */
function frameValue(key: FrameKey, context: boolean): string {
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
  if (key.function !== undefined && !(context && key.contextOverFunction === true)) {
    text += `${comma}"function":${JSON.stringify(key.function)}`
    comma = ','
  }
  if (context && key.context !== undefined)
    text += `${comma}"context":${JSON.stringify(key.context)}`
  return `${text}}`
}

function stackValues(
  run: Run,
  kind: string,
  frames: readonly Frame[],
  platform: string,
): string[] | undefined {
  const appKeys = keysOf(run, frames, 'app', platform)
  const keys = appKeys.length > 0 ? appKeys : keysOf(run, frames, 'system', platform)
  return keys.length === 0 ? undefined : [kind, ...keys.map((key) => frameValue(key, run.context))]
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
  run: Run,
  out: string[],
  exception: ExceptionValue,
  keys: readonly FrameKey[],
): void {
  const start = out.length
  out.push('exception')
  const type = nonBlank(exception.type)
  if (type !== undefined && exception.mechanism?.synthetic !== true) out.push(`type:${type}`)
  if (keys.length > 0) {
    for (const key of keys) out.push(frameValue(key, run.context))
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
function exceptionParts(
  run: Run,
  event: NormalizedEvent,
  chain: readonly ExceptionValue[],
): string[][] {
  const stacks = chain.map((exception) => exception.stacktrace?.frames ?? NO_FRAMES)
  const appKeys = stacks.map((frames) => keysOf(run, frames, 'app', event.platform))
  const app = appKeys.some((keys) => keys.length > 0)
  return chain.map((exception, i) => {
    const keys = app ? appKeys[i] : keysOf(run, stacks[i] ?? NO_FRAMES, 'system', event.platform)
    const part: string[] = []
    pushExceptionValues(run, part, exception, keys ?? [])
    return part
  })
}

/** One empty stack for exceptions without frames (a cache key like any other). */
const NO_FRAMES: readonly Frame[] = []

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

function chainGrouping(run: Run, event: NormalizedEvent): ChainGrouping {
  const chain = event.exception?.values ?? []
  if (chain.length === 0) return { values: undefined }
  if (isCapturedMessage(chain)) {
    return { values: messageValues(groupingMessage(event) ?? nonBlank(chain.at(-1)?.value)) }
  }
  const parts = exceptionParts(run, event, chain)
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
function defaultValues(run: Run, event: NormalizedEvent, chain: string[] | undefined): string[] {
  if (chain !== undefined) return chain
  const threads = threadFrames(event)
  return (
    (threads === undefined ? undefined : stackValues(run, 'threads', threads, event.platform)) ??
    stackValues(run, 'stacktrace', event.stacktrace?.frames ?? NO_FRAMES, event.platform) ??
    messageValues(groupingMessage(event)) ?? ['fallback'] // one shared group for the rest
  )
}

/** What the strategy makes of an event: the values hashed for its group, and what names its issue. */
export interface GroupingValues {
  /** The ordered values whose hash is the event's group (v2). */
  values: string[]
  /**
   * The values an issue of such events may have been stored under: v1's when they differ from
   * v2's (a source line counted), else v1's before it reduced exception groups
   * (exception-groups.ts) when the reduction applied.
   */
  previousValues?: string[]
  /** The exception of the chain that names the issue, when not the last one. */
  main?: number
}

/** A fresh run of one version over an event, sharing the stack keys of an earlier run. */
const runOf = (context: boolean, keys: Run['keys'] = new Map()): Run => ({
  context,
  keys,
  sawContext: false,
})

/** One version's values (fingerprint, else chain, threads, stack trace, message). */
function versionValues(
  run: Run,
  event: NormalizedEvent,
  plan: FingerprintPlan = planFingerprint(event),
): GroupingValues {
  if (plan.kind === 'custom') {
    const values = ['fingerprint', ...plan.values.map((value) => `fingerprint:${value}`)]
    // The chain decides nothing here, but a lone member of a group still names the issue.
    const chain = event.exception?.values ?? []
    const main = hasExceptionGroup(chain) ? chainGrouping(run, event).main : undefined
    return main === undefined ? { values } : { values, main }
  }
  const extras = plan.kind === 'hybrid' ? plan.extras.map((extra) => `fingerprint:${extra}`) : []
  const wrap = (values: string[]) =>
    plan.kind === 'default' ? values : ['hybrid', ...values, ...extras]
  const chain = chainGrouping(run, event)
  const out: GroupingValues = { values: wrap(defaultValues(run, event, chain.values)) }
  if (chain.unreduced !== undefined)
    out.previousValues = wrap(defaultValues(run, event, chain.unreduced))
  if (chain.main !== undefined) out.main = chain.main
  return out
}

/**
 * Groups an event under v2, with v1's values as the previous ones when a source line made them
 * differ (v1 then runs again over the same stack keys; without a source line both versions
 * write the same values, so an issue v1 stored keeps its hash).
 */
export function groupingValues(event: NormalizedEvent): GroupingValues {
  const v2 = runOf(true)
  const plan = planFingerprint(event)
  const out = versionValues(v2, event, plan)
  if (!v2.sawContext) return out
  const v1 = versionValues(runOf(false, v2.keys), event, plan)
  out.previousValues = v1.values
  return out
}

/** The ordered values of `event`'s group under v1 (the issues stored before v2; tests). */
export function groupingValuesV1(event: NormalizedEvent): string[] {
  return versionValues(runOf(false), event).values
}

/** The ordered values of `event`'s group under v2, the current strategy (tests, debugging). */
export function groupingValuesV2(event: NormalizedEvent): string[] {
  return versionValues(runOf(true), event).values
}
