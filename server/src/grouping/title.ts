import type { Frame, NormalizedEvent } from '../event/types.ts'
import { withoutQuery } from '../event/url-path.ts'
import { crashFrame, primaryFrames } from './frames.ts'
import { culpritInApp } from './in-app.ts'
import { webJsModule } from './js-module.ts'
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

/**
 * The first line of an exception's value or a message in a title: at most 100 characters, a
 * longer one cut to 97 and `...` (Sentry's `truncatechars(…, 100)` in its event titles).
 */
function titleText(text: string): string {
  const line = firstLine(text)
  return line.length <= 100 ? line : `${line.slice(0, 97)}...`
}

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
  if (type !== undefined && value !== undefined) return `${type}: ${titleText(value)}`
  if (type !== undefined) return type
  if (value !== undefined) return titleText(value)
  const message = displayMessage(event)
  return message === undefined ? '<unlabeled event>' : titleText(message)
}

const JS_PLATFORMS = new Set(['javascript', 'node'])
const NATIVE_PLATFORMS = new Set(['objc', 'cocoa', 'native'])

/**
 * One frame as Sentry's legacy culprit writes it (sentry `culprit.py`): the function alone for
 * native code, `function(file)` for JavaScript, else "module or file in function"; a frame of
 * another language than the event (`frame.platform`) is written as its own. Empty when a
 * non-native frame names neither module nor file. A JavaScript frame without a module of its
 * own is written with the module Sentry derives from its served or bundled URL
 * ({@link webJsModule}: `Bomb(src/Bomb)`, `n(app)`), else its file without query and fragment:
 * webpack names a second module of one file `App.vue?5d7d` after a hash that vue-loader's
 * template id (of the file's content) changes with every edit, and a served file may carry a
 * cache-busting `?v=`.
 */
function frameCulprit(frame: Frame, eventPlatform: string): string {
  const platform = nonBlank(frame.platform) ?? eventPlatform
  const fn = nonBlank(frame.function) ?? nonBlank(frame.raw_function)
  if (NATIVE_PLATFORMS.has(platform)) return fn ?? '?'
  const module = nonBlank(frame.module)
  const location = module ?? nonBlank(frame.filename)
  if (location === undefined) return ''
  if (!JS_PLATFORMS.has(platform)) return `${location} in ${fn ?? '?'}`
  const served = module ?? webJsModule(nonBlank(frame.abs_path) ?? location)
  return `${fn ?? '?'}(${served ?? nonBlank(withoutQuery(location)) ?? location})`
}

/**
 * The newest in-app frame that says where it is, else the newest library frame: Sentry's
 * `get_stacktrace_culprit` (in-app as {@link culpritInApp} reads it).
 */
function stackCulprit(
  frames: readonly Frame[],
  platform: string,
  inApp: (frame: Frame) => boolean,
): string {
  let library: string | undefined
  for (let i = frames.length - 1; i >= 0; i--) {
    const frame = frames[i] as Frame
    if (inApp(frame)) {
      const here = frameCulprit(frame, platform)
      if (here !== '') return here
    } else if (library === undefined) library = frameCulprit(frame, platform)
  }
  return library ?? ''
}

/**
 * The stack the culprit is read from: the newest exception of the chain that has frames (a
 * wrapper exception often has none, its cause has them), else the event's own stack trace,
 * else the crashed thread's.
 */
function culpritFrames(event: NormalizedEvent): readonly Frame[] {
  const withFrames = event.exception?.values.findLast((e) => (e.stacktrace?.frames.length ?? 0) > 0)
  if (withFrames?.stacktrace !== undefined) return withFrames.stacktrace.frames
  return primaryFrames(event)
}

/**
 * Sentry's rule (`get_culprit`): the culprit the client sent, else the event's `transaction`
 * (a web framework's integration names it after the route, e.g. `GET /orders/:id`), else the
 * crash site of the stack trace, else the request's URL. A synthetic exception (one the SDK made
 * up around a non-error value) gets none. Beyond Sentry, a crash site that names no file or
 * module is shown by its function rather than left blank.
 */
function culprit(event: NormalizedEvent): string {
  const sent = nonBlank(event.culprit) ?? nonBlank(event.transaction)
  if (sent !== undefined) return sent
  if (event.exception?.values.at(-1)?.mechanism?.synthetic === true) return ''
  const frames = culpritFrames(event)
  const inApp = culpritInApp(frames)
  const site = stackCulprit(frames, event.platform, inApp)
  if (site !== '') return site
  const url = event.request?.['url']
  if (typeof url === 'string' && url.trim() !== '') return withoutQuery(url)
  const frame = crashFrame(frames, inApp)
  return nonBlank(frame?.function) ?? nonBlank(frame?.raw_function) ?? ''
}

/** The type an exception that names none is shown with. */
const UNTYPED = 'Error'

/**
 * Title, culprit and metadata of an event, taken from its primary exception if any: the one at
 * `main` when the grouping names one (an exception group reduced to one member), else the last.
 */
export function labelEvent(event: NormalizedEvent, main?: number): EventLabels {
  const values = event.exception?.values
  const primary = (main === undefined ? undefined : values?.[main]) ?? values?.at(-1)
  const value = nonBlank(primary?.value)
  // An exception that names no type is an `Error` to Sentry (`ErrorEvent.get_metadata`'s
  // default): sentry-go's zerolog hook sends a value alone.
  // A synthetic exception (the SDK's own, around a message) is titled by its value as before.
  const untyped =
    value === undefined || primary?.mechanism?.synthetic === true ? undefined : UNTYPED
  const type = nonBlank(primary?.type) ?? untyped
  const metadata: EventLabels['metadata'] = {}
  if (type !== undefined) metadata.type = type
  if (value !== undefined) metadata.value = truncate(value, METADATA_VALUE_MAX)
  return {
    title: truncate(title(event, type, value), TITLE_MAX),
    culprit: truncate(culprit(event), CULPRIT_MAX),
    metadata,
  }
}
