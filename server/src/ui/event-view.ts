/**
 * Renders one stored event (message, exception chain with frames, breadcrumbs, tags, contexts,
 * user, request, SDK integrations). The payload is read as untrusted JSON through small guards, and every value
 * is shown as text through `html`.
 */

import type { NormalizedEvent } from '../event/types.ts'
import { installedDependency } from '../grouping/in-app.ts'
import { remarkLines } from '../privacy/scrub.ts'
import { shownEventTags } from '../search/event-tags.ts'
import { integrationsSection, requestSection } from './event-request.ts'
import { count, isoTime, truncate } from './format.ts'
import { html, type SafeHtml } from './html.ts'

type Json = Record<string, unknown>

/** Caps that keep a pathological event's page small. */
const MAX_FRAMES = 200
const MAX_CHAIN = 20
const MAX_ROWS = 200

const obj = (v: unknown): Json | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])
const str = (v: unknown): string | undefined =>
  typeof v === 'string'
    ? v
    : typeof v === 'number' || typeof v === 'boolean'
      ? String(v)
      : undefined
const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : undefined

/** Any JSON value as one line of text (objects as compact JSON, capped). */
export function textOf(v: unknown, max = 2000): string {
  if (v === null || v === undefined) return ''
  if (typeof v === 'string') return truncate(v, max)
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  try {
    return truncate(JSON.stringify(v), max)
  } catch {
    return ''
  }
}

/** A two-column key/value table; empty when there are no rows. */
export function kvTable(rows: readonly (readonly [string, unknown])[]): SafeHtml {
  const shown = rows.filter(
    ([, v]) => v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && v.length === 0),
  )
  if (shown.length === 0) return html``
  return html`<table class="kv">${shown.map(
    ([k, v]) => html`<tr><th>${k}</th><td class="mono">${textOf(v)}</td></tr>`,
  )}</table>`
}

function contextLines(frame: Json): SafeHtml {
  const line = str(frame['context_line'])
  const lineno = num(frame['lineno'])
  if (line === undefined) return html``
  const pre = arr(frame['pre_context']).map((l) => str(l) ?? '')
  const post = arr(frame['post_context']).map((l) => str(l) ?? '')
  const first = lineno === undefined ? undefined : lineno - pre.length
  const li = (text: string, i: number, hit: boolean) =>
    html`<li class="${hit ? 'hit' : ''}"><span class="ln">${first === undefined ? '' : first + i}</span>${truncate(text, 400)}</li>`
  return html`<ol>${pre.map((t, i) => li(t, i, false))}${li(line, pre.length, true)}${post.map(
    (t, i) => li(t, pre.length + 1 + i, false),
  )}</ol>`
}

/** A loaded binary of a native event (`debug_meta.images`): where it sits in memory. */
export interface NativeImage {
  start: bigint
  end: bigint
  name: string
  /** The full path as sent (`code_file`, or `name` of the older apple and symbolic images). */
  path: string
  debugId: string | undefined
}

/** How a frame is named: the event's platform and, for native code, its loaded binaries. */
interface FrameContext {
  platform: string | undefined
  images: readonly NativeImage[]
}

/** Images read at most (Apple crash reports list several hundred). */
const MAX_IMAGES = 1000

/** An address as sent (`"0x1a2b"` or a number), or undefined when it is neither. */
function address(v: unknown): bigint | undefined {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v)
  if (typeof v !== 'string' || !/^0x[0-9a-f]{1,16}$/i.test(v)) return undefined
  return BigInt(v)
}

/** The base name of a path of either separator. */
const baseName = (path: string): string =>
  path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1) || path

/**
 * The binaries of a native event with their address ranges, sorted by load address, so an
 * unsymbolicated frame (only `instruction_addr`) can be named by the binary it is in, as
 * Sentry's native processing fills in a frame's `package`. The file is `code_file`, or `name`
 * in the older `apple` and `symbolic` images (Relay reads `name` as `code_file`'s legacy
 * alias). Images without a valid address, size or file are skipped.
 */
export function nativeImages(event: Json): NativeImage[] {
  const out: NativeImage[] = []
  for (const v of arr(obj(event['debug_meta'])?.['images']).slice(0, MAX_IMAGES)) {
    const image = obj(v)
    const start = address(image?.['image_addr'])
    const size = address(image?.['image_size'])
    const file = str(image?.['code_file']) ?? str(image?.['name'])
    if (
      start === undefined ||
      size === undefined ||
      size === 0n ||
      file === undefined ||
      file === ''
    )
      continue
    const debugId = str(image?.['debug_id']) ?? str(image?.['uuid']) ?? str(image?.['id'])
    out.push({ start, end: start + size, name: baseName(file), path: file, debugId })
  }
  return out.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0))
}

/**
 * The binary an address falls in: of the images loaded at or below it, the one loaded last,
 * if it reaches the address (a symbolicator's lookup; it also holds when a client sends sizes
 * so large that ranges overlap). `images` is sorted by start, so this is a binary search.
 */
function imageAt(images: readonly NativeImage[], addr: unknown): string | undefined {
  if (images.length === 0) return undefined
  const at = address(addr)
  if (at === undefined) return undefined
  let lo = 0
  let hi = images.length - 1
  let found = -1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if ((images[mid] as NativeImage).start <= at) {
      found = mid
      lo = mid + 1
    } else hi = mid - 1
  }
  const image = images[found]
  return image !== undefined && at < image.end ? image.name : undefined
}

/** Registers shown at most (the normaliser keeps 128). */
const MAX_REGISTERS = 128

/** A stack trace's CPU registers, as sent (`pc`, `sp`, `x0` …), folded below its frames. */
function registersOf(st: Json | undefined): SafeHtml {
  const regs = obj(st?.['registers'])
  if (regs === undefined) return html``
  const rows = Object.entries(regs)
    .slice(0, MAX_REGISTERS)
    .filter((r): r is [string, string] => typeof r[1] === 'string')
  if (rows.length === 0) return html``
  return html`<details class="registers"><summary class="small">Registers (${count(rows.length)})</summary><div class="table-wrap">${kvTable(rows)}</div></details>`
}

/** Loaded binaries listed at most on the page. */
const MAX_IMAGES_SHOWN = 300

/**
 * The binaries loaded in the crashed process (`debug_meta.images`), by load address: file,
 * address range and debug ID, as Sentry lists them under "Images Loaded".
 */
function imagesSection(images: readonly NativeImage[]): SafeHtml {
  if (images.length === 0) return html``
  const shown = images.slice(0, MAX_IMAGES_SHOWN)
  const hex = (v: bigint) => `0x${v.toString(16).padStart(16, '0')}`
  return html`<h2>Images loaded</h2><details class="images"><summary class="small">${count(images.length)} binar${images.length === 1 ? 'y' : 'ies'}</summary><div class="table-wrap"><table class="kv">${shown.map(
    (i) =>
      html`<tr><th title="${truncate(i.path, 1000)}">${truncate(i.name, 200)}</th><td class="mono">${hex(i.start)} – ${hex(i.end)}${i.debugId === undefined ? '' : html` <span class="muted">${truncate(i.debugId, 80)}</span>`}</td></tr>`,
  )}</table></div>${images.length > shown.length ? html`<p class="small muted">${count(images.length - shown.length)} more not shown.</p>` : ''}</details>`
}

/** A native frame's binary (`package`, a path) by its file name, as the native SDKs name it. */
function packageName(frame: Json): string | undefined {
  const pkg = str(frame['package'])
  return pkg === undefined || pkg === '' ? undefined : baseName(pkg)
}

/** Platforms whose frames Sentry names by module (class) rather than by file. */
const MODULE_FIRST = new Set(['java', 'csharp'])

function frameHead(frame: Json, ctx: FrameContext, inApp: boolean): SafeHtml {
  // A JVM or .NET file name (`Handler.java`) says less than its class (`com.shop.Handler`).
  const moduleFirst = MODULE_FIRST.has(str(frame['platform']) ?? ctx.platform ?? '')
  const file =
    (moduleFirst ? str(frame['module']) : undefined) ??
    str(frame['filename']) ??
    str(frame['abs_path']) ??
    str(frame['module']) ??
    packageName(frame) ??
    imageAt(ctx.images, frame['instruction_addr']) ??
    '?'
  const fn = str(frame['function']) ?? str(frame['raw_function'])
  // Line 0 and below mean "unknown" (Unity and unsymbolicated native frames send them).
  const line = num(frame['lineno'])
  const lineno = line !== undefined && line > 0 ? line : undefined
  const colno = num(frame['colno'])
  // An unsymbolicated native frame is known by its address; a symbolicated one keeps it too.
  const addr = str(frame['instruction_addr'])
  return html`${inApp ? html`<span class="badge in-app">in app</span> ` : ''}<span>${file}</span>${
    lineno === undefined
      ? ''
      : html`<span class="muted">:${lineno}${colno === undefined ? '' : `:${colno}`}</span>`
  }${addr === undefined ? '' : html` <span class="muted mono">${truncate(addr, 40)}</span>`}${fn === undefined ? '' : html` in <span class="fn">${fn}</span>`}`
}

/** Why a JavaScript frame is not (fully) source-mapped, and what to run about it. */
const SOURCE_MAP_NOTES: Record<string, string> = {
  no_debug_id:
    'not source-mapped: the event names no debug ID for this file and has no release. Run `sentry-cli sourcemaps inject <dist>` on the build output, deploy that, then `sentry-cli sourcemaps upload <dist>` (see Settings → Source maps).',
  missing_source_map:
    'not source-mapped: no uploaded bundle of this project has a source map for debug ID {id}. Run `sentry-cli sourcemaps upload <dist>` with this project for the build that was deployed.',
  no_release_artifact:
    'not source-mapped: no bundle uploaded for this release has this file. Run `sentry-cli sourcemaps upload --release <release> <dist>`, or inject debug IDs.',
  position_outside_map:
    'not source-mapped: this line and column are outside the uploaded source map (was the map made from another build?).',
  missing_sources_content:
    'source-mapped, but the map carries no sourcesContent for this file, so there is no context. Build with sourcesContent enabled.',
}

/**
 * A frame the page shows as the application's: marked `in_app` by the SDK and not an installed
 * dependency (the stock Rust SDK marks its panic hook and Cargo crates in-app too).
 */
const appFrame = (frame: Json): boolean => frame['in_app'] === true && !installedDependency(frame)

function sourceMapNote(frame: Json): SafeHtml {
  const data = obj(frame['data'])
  const code = str(data?.['sourcemap_error'])
  if (code === undefined || !Object.hasOwn(SOURCE_MAP_NOTES, code)) return html``
  const text = (SOURCE_MAP_NOTES[code] ?? '').replace('{id}', str(data?.['debug_id']) ?? '?')
  return html`<div class="small muted sourcemap-note" data-sourcemap-error="${code}">${text}</div>`
}

/** One frame; `inApp`: whether the page shows it as the application's ({@link appFrame}). */
function oneFrame(
  frame: Json,
  open: boolean,
  ctx: FrameContext,
  inApp = appFrame(frame),
): SafeHtml {
  const note = sourceMapNote(frame)
  const lines = contextLines(frame)
  const vars = obj(frame['vars'])
  const varTable = vars === undefined ? '' : kvTable(Object.entries(vars).slice(0, 50))
  const cls = `frame${inApp ? ' app' : ''}`
  if (lines.value === '' && varTable === '') {
    return html`<div class="${cls}"><div class="head">${frameHead(frame, ctx, inApp)}</div>${note}</div>`
  }
  return html`<details class="${cls}"${open ? html` open` : ''}><summary>${frameHead(frame, ctx, inApp)}</summary>${note}${lines}${varTable}</details>`
}

/**
 * Stack frames, most recent call first; runs of library frames fold into one summary. The
 * event's `platform` decides how a frame is named (a frame's own `platform` wins).
 */
export function stacktrace(
  st: unknown,
  platform?: string,
  images: readonly NativeImage[] = [],
): SafeHtml {
  const ctx: FrameContext = { platform, images }
  const all = arr(obj(st)?.['frames'])
    .map(obj)
    .filter((f): f is Json => f !== undefined)
  if (all.length === 0) return html`<p class="muted small">No stack trace.</p>`
  const registers = registersOf(obj(st))
  // The crash site is last: keep the newest frames of very deep stacks.
  const frames = all.slice(-MAX_FRAMES).reverse()
  const hidden = all.length - frames.length
  // Each frame's in-app reading once (it runs the dependency paths' regex).
  const app = frames.map(appFrame)
  const anyInApp = app.includes(true)
  const out: SafeHtml[] = []
  let firstAppOpen = true
  for (let i = 0; i < frames.length; ) {
    const f = frames[i] as Json
    if (!anyInApp || app[i] === true) {
      out.push(oneFrame(f, anyInApp ? firstAppOpen : i === 0, ctx, app[i] === true))
      if (app[i] === true) firstAppOpen = false
      i++
      continue
    }
    const run: Json[] = []
    while (i < frames.length && app[i] !== true) run.push(frames[i++] as Json)
    out.push(
      html`<details class="system-frames"><summary>${count(run.length)} library frame${run.length === 1 ? '' : 's'}</summary>${run.map((x) => oneFrame(x, false, ctx, false))}</details>`,
    )
  }
  return html`<div class="frames">${out}${hidden > 0 ? html`<div class="frame"><div class="head muted">${count(hidden)} older frames not shown</div></div>` : ''}</div>${registers}`
}

/** An event's threads (`threads.values`, or a bare list as old SDKs sent it), objects only. */
function threadsOf(event: Json): Json[] {
  return arr(obj(event['threads'])?.['values'] ?? event['threads'])
    .map(obj)
    .filter((t): t is Json => t !== undefined)
}

/**
 * The stack of the thread that crashed, for an event whose only exception has none (a Ruby
 * template error, a native crash whose SDK puts the frames on the thread): Sentry shows that
 * thread's frames under the exception. The thread named by the exception's `thread_id` wins.
 */
function crashedThreadStack(event: Json, exception: Json): Json | undefined {
  const threads = threadsOf(event)
  const id = str(exception['thread_id'])
  const thread =
    (id === undefined ? undefined : threads.find((t) => str(t['id']) === id)) ??
    threads.find((t) => t['crashed'] === true)
  const st = obj(thread?.['stacktrace'])
  return arr(st?.['frames']).length > 0 ? st : undefined
}

/** A number as hex (Mach exception codes and subcodes are addresses or flag words). */
const hex = (n: number): string => (n < 0 ? `-0x${(-n).toString(16)}` : `0x${n.toString(16)}`)

/**
 * What the operating system said of a native crash (`mechanism.meta`), one phrase per part:
 * `signal SIGSEGV (11, SEGV_MAPERR)`, `errno ENOENT (2)`, `Mach exception EXC_BAD_ACCESS (1,
 * code 0x1, subcode 0x8)`, `NSError NSCocoaErrorDomain 4`.
 */
export function osCause(meta: Json | undefined): string[] {
  if (meta === undefined) return []
  const out: string[] = []
  const named = (word: string, name: string | undefined, nums: string[]) => {
    const inner = nums.join(', ')
    if (name === undefined && inner === '') return
    out.push(`${word}${name === undefined ? '' : ` ${name}`}${inner === '' ? '' : ` (${inner})`}`)
  }
  const sig = obj(meta['signal'])
  if (sig !== undefined) {
    const parts: string[] = []
    const n = num(sig['number'])
    const code = num(sig['code'])
    if (n !== undefined) parts.push(String(n))
    const codeName = str(sig['code_name']) ?? (code === undefined ? undefined : `code ${code}`)
    if (codeName !== undefined) parts.push(codeName)
    named('signal', str(sig['name']), parts)
  }
  const errno = obj(meta['errno'])
  if (errno !== undefined) {
    const n = num(errno['number'])
    named('errno', str(errno['name']), n === undefined ? [] : [String(n)])
  }
  const mach = obj(meta['mach_exception'])
  if (mach !== undefined) {
    const parts: string[] = []
    const e = num(mach['exception'])
    const code = num(mach['code'])
    const sub = num(mach['subcode'])
    if (e !== undefined) parts.push(String(e))
    if (code !== undefined) parts.push(`code ${hex(code)}`)
    if (sub !== undefined) parts.push(`subcode ${hex(sub)}`)
    named('Mach exception', str(mach['name']), parts)
  }
  const ns = obj(meta['ns_error'])
  if (ns !== undefined) {
    const domain = str(ns['domain'])
    const code = num(ns['code'])
    if (domain !== undefined || code !== undefined)
      out.push(
        ['NSError', domain, code === undefined ? undefined : String(code)]
          .filter((x) => x !== undefined)
          .join(' '),
      )
  }
  return out
}

/** A mechanism's description, help link (as text: a client's URL is never a link here) and data. */
function mechanismDetails(mech: Json): SafeHtml | string {
  const description = str(mech['description'])
  const help = str(mech['help_link'])
  const data = obj(mech['data'])
  if (description === undefined && help === undefined && data === undefined) return ''
  return html`${description === undefined ? '' : html`<p class="small">${truncate(description, 2000)}</p>`}${help === undefined ? '' : html`<p class="small muted">help: <span class="mono">${truncate(help, 500)}</span></p>`}${data === undefined ? '' : html`<div class="table-wrap">${kvTable(Object.entries(data).slice(0, 50))}</div>`}`
}

/**
 * The `exception_id`s of the chain's exception groups (Python's ExceptionGroup, JS's
 * AggregateError): an exception whose `parent_id` is one of them is a member of that group,
 * not its cause.
 */
function exceptionGroupIds(values: readonly Json[]): Set<number> {
  const ids = new Set<number>()
  for (const v of values) {
    const mech = obj(v['mechanism'])
    const id = num(mech?.['exception_id'])
    if (mech?.['is_exception_group'] === true && id !== undefined) ids.add(id)
  }
  return ids
}

/**
 * The frames as the client sent them when source maps rewrote the shown ones
 * (`raw_stacktrace`), folded: Sentry's "minified" view, to compare a mapped frame with the
 * line and column the browser reported.
 */
function rawFrames(exception: Json, platform: string | undefined, images: readonly NativeImage[]) {
  const raw = exception['raw_stacktrace']
  if (arr(obj(raw)?.['frames']).length === 0) return html``
  return html`<details class="raw-frames"><summary class="small muted">Minified frames, as sent</summary>${stacktrace(raw, platform, images)}</details>`
}

/** The exception chain: the one thrown first, then what caused it. */
function exceptions(event: Json, images: readonly NativeImage[]): SafeHtml {
  const values = arr(obj(event['exception'])?.['values'])
    .map(obj)
    .filter((v): v is Json => v !== undefined)
    .slice(-MAX_CHAIN)
  const only = values.length === 1 ? values[0] : undefined
  const borrowed =
    only !== undefined && arr(obj(only['stacktrace'])?.['frames']).length === 0
      ? crashedThreadStack(event, only)
      : undefined
  const groups = exceptionGroupIds(values)
  return html`${[...values].reverse().map((v, i) => {
    const mech = obj(v['mechanism'])
    const handled = mech?.['handled']
    const type = str(v['type'])
    const value = str(v['value'])
    const parent = num(mech?.['parent_id'])
    const relation =
      parent !== undefined && groups.has(parent)
        ? `In exception group #${parent}${str(mech?.['source']) === undefined ? '' : ` (${truncate(str(mech?.['source']) ?? '', 64)})`}: `
        : i > 0
          ? // Java's suppressed exceptions (try-with-resources, Reactor's assembly trace) are
            // no cause: the SDK marks them so, and Java prints them as `Suppressed:`.
            str(mech?.['type']) === 'suppressed'
            ? 'Suppressed: '
            : 'Caused by '
          : ''
    return html`<section class="exception">
<h3>${relation === '' ? '' : html`<span class="muted">${relation}</span>`}${mech?.['is_exception_group'] === true ? html`<span class="badge">exception group #${num(mech['exception_id']) ?? '?'}</span> ` : ''}${type ?? ''}${type !== undefined && value !== undefined ? ': ' : ''}${value ?? ''}</h3>
${mech === undefined ? '' : html`<p class="small muted">mechanism ${str(mech['type']) ?? 'unknown'}${handled === false ? html` · <span class="badge error">unhandled</span>` : handled === true ? ' · handled' : ''}${osCause(obj(mech['meta'])).map((c) => ` · ${c}`)}</p>${mechanismDetails(mech)}`}
${
  borrowed === undefined
    ? stacktrace(v['stacktrace'], str(event['platform']), images)
    : html`<p class="small muted">No stack trace of its own: the crashed thread's.</p>${stacktrace(borrowed, str(event['platform']), images)}`
}${rawFrames(v, str(event['platform']), images)}</section>`
  })}`
}

function message(event: Json): string | undefined {
  const log = obj(event['logentry'])
  const text = str(log?.['formatted']) ?? str(log?.['message']) ?? str(event['message'])
  // An empty message (stored events of other servers carry `"message": ""`) shows nothing.
  return text === undefined || text.trim() === '' ? undefined : text
}

function breadcrumbs(event: Json): SafeHtml {
  const crumbs = arr(obj(event['breadcrumbs'])?.['values'] ?? event['breadcrumbs'])
    .map(obj)
    .filter((b): b is Json => b !== undefined)
    .slice(-100)
  if (crumbs.length === 0) return html``
  return html`<h2>Breadcrumbs</h2><div class="table-wrap"><table><thead><tr><th>Time</th><th>Category</th><th>Level</th><th>Message / data</th></tr></thead><tbody>${crumbs.map(
    (b) => {
      const ts = num(b['timestamp'])
      const data = obj(b['data'])
      return html`<tr><td class="nowrap small">${ts === undefined ? '' : isoTime(ts * 1000).slice(11)}</td>
<td>${str(b['category']) ?? str(b['type']) ?? ''}</td><td><span class="badge ${str(b['level']) ?? ''}">${str(b['level']) ?? ''}</span></td>
<td class="break">${str(b['message']) ?? ''}${data === undefined ? '' : html`<div class="mono small muted">${textOf(data, 600)}</div>`}</td></tr>`
    },
  )}</tbody></table></div>`
}

/** Tags as [key, value] pairs, whatever shape the payload holds them in. */
export function tagsOf(event: Json): [string, string][] {
  const t = event['tags']
  if (Array.isArray(t)) {
    return t
      .filter((p): p is unknown[] => Array.isArray(p) && p.length >= 2)
      .slice(0, MAX_ROWS)
      .map((p) => [str(p[0]) ?? '', str(p[1]) ?? ''])
  }
  const o = obj(t)
  return o === undefined
    ? []
    : Object.entries(o)
        .slice(0, MAX_ROWS)
        .map(([k, v]) => [k, str(v) ?? textOf(v)])
}

/**
 * The event's tags as the search indexes them (promoted from its fields, then the SDK's:
 * search/event-tags.ts), so an event without SDK tags still shows its browser, user, url …,
 * then any SDK tag the search left out; a payload of another shape shows its own `tags`.
 */
function indexedTagsOf(event: Json): [string, string][] {
  const own = tagsOf(event)
  if (!Array.isArray(event['tags'])) return own
  try {
    // The stored payload is the normalised event (ingest/items/event.ts).
    return shownEventTags(event as unknown as NormalizedEvent, own, MAX_ROWS)
  } catch {
    return own
  }
}

function contexts(event: Json): SafeHtml {
  const ctx = obj(event['contexts'])
  if (ctx === undefined) return html``
  const parts = Object.entries(ctx)
    .slice(0, 30)
    .map(([name, v]) => [name, obj(v)] as const)
    .filter((e): e is readonly [string, Json] => e[1] !== undefined)
  if (parts.length === 0) return html``
  return html`<h2>Contexts</h2><div class="grid2">${parts.map(
    ([name, v]) =>
      html`<div class="card"><h3>${name}</h3>${kvTable(Object.entries(v).slice(0, 40))}</div>`,
  )}</div>`
}

/** Threads shown at most, and frames per thread (the stacks fold, closed). */
const MAX_THREADS = 50

/**
 * Every thread the SDK sent (native crashes, Android and Apple SDKs with attachThreads, ANR
 * reports): its name and id, whether it crashed or is current, its stack folded. The exception
 * above shows the crash; the other threads say what the program was doing meanwhile.
 */
function threadsSection(event: Json, images: readonly NativeImage[]): SafeHtml {
  const threads = threadsOf(event)
  if (threads.length === 0) return html``
  const shown = threads.slice(0, MAX_THREADS)
  return html`<h2>Threads</h2><div class="frames">${shown.map((t) => {
    const frames = arr(obj(t['stacktrace'])?.['frames']).length
    const name = str(t['name'])
    const id = str(t['id'])
    const label = html`${name ?? (id === undefined ? 'thread' : `thread ${id}`)}${name !== undefined && id !== undefined ? html` <span class="muted">#${truncate(id, 64)}</span>` : ''}${t['crashed'] === true ? html` <span class="badge error">crashed</span>` : ''}${t['current'] === true ? html` <span class="badge">current</span>` : ''}${t['main'] === true ? html` <span class="badge">main</span>` : ''}${str(t['state']) === undefined ? '' : html` <span class="muted small">${truncate(str(t['state']) ?? '', 64)}</span>`} <span class="muted small">${frames === 0 ? 'no stack trace' : `${count(frames)} frame${frames === 1 ? '' : 's'}`}</span>`
    return frames === 0
      ? html`<div class="frame"><div class="head">${label}</div></div>`
      : html`<details class="thread"><summary>${label}</summary>${stacktrace(t['stacktrace'], str(event['platform']), images)}</details>`
  })}${threads.length > shown.length ? html`<div class="frame"><div class="head muted">${count(threads.length - shown.length)} more threads not shown</div></div>` : ''}</div>`
}

/**
 * The template frame old raven clients sent for a Django or Jinja template error (`template`,
 * formerly `sentry.interfaces.Template`): file, line and the lines around it.
 */
function templateSection(event: Json): SafeHtml {
  const template = obj(event['template'])
  if (template === undefined) return html``
  return html`<h2>Template</h2><div class="frames">${oneFrame(template, true, { platform: undefined, images: [] })}</div>`
}

/** Browser security reports as old SDKs and Relay's security endpoint store them. */
const SECURITY_REPORTS: readonly (readonly [string, string])[] = [
  ['csp', 'CSP report'],
  ['hpkp', 'HPKP report'],
  ['expectct', 'Expect-CT report'],
  ['expectstaple', 'Expect-Staple report'],
]

/** The security report an event carries (violated directive, blocked URI, host, pins …). */
function securityReports(event: Json): SafeHtml {
  return html`${SECURITY_REPORTS.map(([key, heading]) => {
    const report = obj(event[key])
    if (report === undefined) return ''
    return html`<h2>${heading}</h2><div class="table-wrap">${kvTable(Object.entries(report).slice(0, MAX_ROWS))}</div>`
  })}`
}

/**
 * What server-side scrubbing removed from the event (its `_meta` remarks): the path and the
 * rule, never the value, which was not stored.
 */
function removedData(meta: unknown): SafeHtml | string {
  const lines = remarkLines(meta)
  if (lines.length === 0) return ''
  return html`<h2>Data removed</h2><p class="small muted">Scrubbed by the server before the event was stored: [Filtered] marks a replaced value.</p><div class="table-wrap"><table class="kv remarks">${lines.map(
    (l) =>
      html`<tr><th>${l.path === '' ? '(event)' : l.path}</th><td>${l.removed ? 'removed' : 'replaced'} by ${l.rules.join(', ')}</td></tr>`,
  )}</table></div>`
}

/** The whole event section of the issue page. */
export function eventBody(payload: unknown, component: string | null): SafeHtml {
  const event = obj(payload) ?? {}
  const images = nativeImages(event)
  const msg = message(event)
  const hasException = arr(obj(event['exception'])?.['values']).length > 0
  const threads = arr(obj(event['threads'])?.['values']).map(obj)
  const crashed =
    threads.find((t) => t?.['crashed'] === true) ?? threads.find((t) => t?.['current'] === true)
  const st = event['stacktrace'] ?? (hasException ? undefined : crashed?.['stacktrace'])
  const tags = indexedTagsOf(event)
  const user = obj(event['user'])
  const sdk = obj(event['sdk'])
  return html`${msg === undefined ? '' : html`<h2>Message</h2><pre>${truncate(msg, 8000)}</pre>`}
${removedData(event['_meta'])}
${hasException ? html`<h2>Exception</h2><p class="small muted">Most recent call first.</p>${exceptions(event, images)}` : ''}
${st === undefined ? '' : html`<h2>Stack trace</h2>${stacktrace(st, str(event['platform']), images)}`}
${threadsSection(event, images)}
${imagesSection(images)}
${securityReports(event)}
${templateSection(event)}
<div class="grid2"><div><h2>Tags</h2>${tags.length === 0 ? html`<p class="muted small">No tags.</p>` : html`<div class="table-wrap"><table class="kv">${tags.map(([k, v]) => html`<tr><th>${k}</th><td>${v}</td></tr>`)}</table></div>`}</div>
<div><h2>Event</h2><div class="table-wrap">${kvTable([
    ['release', event['release']],
    ['environment', event['environment']],
    ['component', component],
    ['level', event['level']],
    ['platform', event['platform']],
    ['logger', event['logger']],
    ['transaction', event['transaction']],
    ['server', event['server_name']],
    [
      'sdk',
      sdk === undefined ? undefined : `${str(sdk['name']) ?? ''} ${str(sdk['version']) ?? ''}`,
    ],
    ['fingerprint', event['fingerprint']],
  ])}</div>
${user === undefined || Object.keys(user).length === 0 ? '' : html`<h2>User</h2><div class="table-wrap">${kvTable(Object.entries(user).slice(0, 30))}</div>`}</div></div>
${breadcrumbs(event)}
${requestSection(event['request'])}
${contexts(event)}
${integrationsSection(sdk)}
${obj(event['extra']) === undefined ? '' : html`<h2>Extra</h2><div class="table-wrap">${kvTable(Object.entries(obj(event['extra']) ?? {}).slice(0, 50))}</div>`}`
}
