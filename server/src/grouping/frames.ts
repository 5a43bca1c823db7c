import type { Frame, NormalizedEvent } from '../event/types.ts'
import { isInApp } from './in-app.ts'

/** `app`: only in-app frames count; `system`: every frame (used when no in-app frame counts). */
export type Variant = 'app' | 'system'

/**
 * The stable parts of one frame; line and column numbers never count. `context` is the source
 * line (whitespace collapsed) where Sentry's strategy reads it (`contextOverFunction`: it
 * stands for the function name of a source-mapped JavaScript frame); the strategy before v2
 * reads module, filename and function only.
 */
export interface FrameKey {
  module?: string
  filename?: string
  function?: string
  context?: string
  contextOverFunction?: true
}

/** Platforms whose source lines Sentry trusts for grouping (its `contextline_platforms`). */
const CONTEXT_PLATFORMS = new Set(['javascript', 'node', 'python', 'php', 'ruby'])
/** Longer source lines are left out (minified code; Sentry's limit). */
const MAX_CONTEXT_LINE = 120
/** A blank that is not a single space, or two blanks in a row. */
const INNER_BLANKS = /[^\S ]|\s\s/
/** A path served from a URL (`file:` included), where a JS frame without a name is unstable. */
const URL_ORIGIN = /^(?:https?:|applewebdata:|blob:|file:)/

const JS_PLATFORMS = new Set(['javascript', 'node'])
const NATIVE_PLATFORMS = new Set(['native', 'c', 'cocoa', 'objc'])

/** Paths that name no real file: no filename component and, for JS, no frame at all. */
const PSEUDO_PATHS = new Set(['<anonymous>', '[native code]', 'native code', 'eval code'])
/** `scheme://…` and `blob:`/`data:` URLs: their host and build hashes change across deploys. */
const URL_PATH = /^(?:[a-zA-Z][a-zA-Z0-9+.-]*:\/\/|blob:|data:)/
/** JS function names that stand for "no name". */
const JS_NO_NAME = new Set(['?', '<anonymous>', '<anonymous function>', 'Anonymous function'])
/** Native placeholders for unsymbolicated frames. */
const NATIVE_NO_NAME = new Set(['<unknown>', '<redacted>'])

function isPseudoOrUrl(path: string | undefined): boolean {
  return path !== undefined && (PSEUDO_PATHS.has(path) || URL_PATH.test(path))
}

/** Strips JVM generated-class suffixes (lambdas, reflection accessors, CGLIB proxies). */
function javaModule(module: string): string {
  return module
    .replace(/\$\$Lambda.*$/, '$$$$Lambda')
    .replace(/GeneratedMethodAccessor\d+/, 'GeneratedMethodAccessor')
    .replace(/\$\$(EnhancerBy|FastClassBy)(\w*?)CGLIB\$\$[0-9a-f]+/, '$$$$$1$2CGLIB')
}

function frameFunction(frame: Frame, platform: string): string | undefined {
  const name = frame.function ?? frame.raw_function
  if (name === undefined || name === '') return undefined
  if (JS_PLATFORMS.has(platform)) {
    // `Object.run [as handle]` → `run`: the receiver depends on how the function was called.
    const bare = name.includes('[as ') ? name.replace(/\s*\[as [^\]]*\]$/, '') : name
    const last = bare.slice(bare.lastIndexOf('.') + 1)
    return JS_NO_NAME.has(last) || JS_NO_NAME.has(bare) || bare.endsWith('/<') ? undefined : last
  }
  if (platform === 'java' && name.startsWith('lambda$')) return undefined
  if (NATIVE_PLATFORMS.has(platform)) {
    // Rust symbols may keep their `::h0123456789abcdef` disambiguation hash.
    return NATIVE_NO_NAME.has(name) ? undefined : name.replace(/::h[0-9a-f]{16}$/, '')
  }
  return name
}

/** The grouping parts of a frame, or undefined when the frame is noise (JS eval, native code). */
export function frameKey(frame: Frame, eventPlatform: string): FrameKey | undefined {
  const platform = frame.platform ?? eventPlatform
  const path = frame.abs_path ?? frame.filename
  if (JS_PLATFORMS.has(platform) && (frame.function === 'eval' || PSEUDO_PATHS.has(path ?? ''))) {
    return undefined
  }
  const key: FrameKey = {}
  if (frame.module !== undefined && frame.module !== '') {
    key.module = platform === 'java' ? javaModule(frame.module) : frame.module
  } else if (path !== undefined && !isPseudoOrUrl(path) && !isPseudoOrUrl(frame.filename)) {
    const base = path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1)
    if (base !== '') key.filename = base.toLowerCase()
  }
  const fn = frameFunction(frame, platform)
  if (fn !== undefined) key.function = fn
  if (key.module === undefined && key.filename === undefined && fn === undefined) return undefined
  const line = frame.context_line
  if (line !== undefined && line.length <= MAX_CONTEXT_LINE && CONTEXT_PLATFORMS.has(platform)) {
    // Most lines only need their indentation cut: the replace runs when blanks repeat inside.
    let context = line.trim()
    if (INNER_BLANKS.test(context)) context = context.replace(/\s+/g, ' ')
    const js = JS_PLATFORMS.has(platform)
    if (context !== '' && !(js && !frame.function && URL_ORIGIN.test(path ?? ''))) {
      key.context = context
      if (js && fn !== undefined && frame.data?.['sourcemap'] !== undefined)
        key.contextOverFunction = true
    }
  }
  return key
}

/** Identity for recursion detection: the same code location, line and column included. */
function sameLocation(a: Frame, b: Frame): boolean {
  return (
    a.abs_path === b.abs_path &&
    a.package === b.package &&
    a.module === b.module &&
    a.filename === b.filename &&
    a.function === b.function &&
    a.lineno === b.lineno &&
    a.colno === b.colno
  )
}

/**
 * The grouping parts of a stack trace's frames for a variant, caller first. Consecutive
 * identical frames (recursion) count once, so the recursion depth does not split groups.
 */
export function stackKeys(
  frames: readonly Frame[],
  variant: Variant,
  platform: string,
): FrameKey[] {
  const keys: FrameKey[] = []
  let previous: Frame | undefined
  for (const frame of frames) {
    if (variant === 'app' && !isInApp(frame)) continue
    if (previous !== undefined && sameLocation(frame, previous)) continue
    previous = frame
    const key = frameKey(frame, platform)
    if (key !== undefined) keys.push(key)
  }
  return keys
}

/**
 * The frame where the event happened: the last in-app frame, else the last frame. `inApp` is
 * the grouping's rule unless the caller reads in-app otherwise (the culprit's).
 */
export function crashFrame(
  frames: readonly Frame[],
  inApp: (frame: Frame) => boolean = isInApp,
): Frame | undefined {
  return frames.findLast((frame) => inApp(frame)) ?? frames.at(-1)
}

/** The stack of the thread that crashed, else the current one, else the only one with a stack. */
export function threadFrames(event: NormalizedEvent): Frame[] | undefined {
  const threads = (event.threads?.values ?? []).filter(
    (t) => (t.stacktrace?.frames.length ?? 0) > 0,
  )
  const thread =
    threads.find((t) => t.crashed === true) ??
    threads.find((t) => t.current === true) ??
    (threads.length === 1 ? threads[0] : undefined)
  return thread?.stacktrace?.frames
}

/** The stack that locates the event: the primary exception's, else the event's, else a thread's. */
export function primaryFrames(event: NormalizedEvent): Frame[] {
  const exception = event.exception?.values.at(-1)?.stacktrace?.frames
  if (exception !== undefined && exception.length > 0) return exception
  const stack = event.stacktrace?.frames
  if (stack !== undefined && stack.length > 0) return stack
  const thread = threadFrames(event)
  return thread !== undefined && thread.length > 0 ? thread : []
}
