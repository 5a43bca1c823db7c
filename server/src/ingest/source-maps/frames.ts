import { installedDependency } from '../../grouping/in-app.ts'
import type { OriginalPosition, ParsedMap } from './parsed-map.ts'

type Json = Record<string, unknown>
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Most stack frames of one event that resolution looks at (the normaliser keeps 250). */
const MAX_FRAMES = 500

/**
 * Why a frame could not be mapped, as stored in the frame's `data.sourcemap_error` and shown
 * on the issue page with what to run (docs/source-maps.md "Why a frame is not mapped").
 */
export type FrameError =
  | 'no_debug_id'
  | 'missing_source_map'
  | 'no_release_artifact'
  | 'position_outside_map'
  | 'missing_sources_content'

/** The source maps an event needs: debug IDs, and URL candidates for release lookups. */
export interface SourceMapNeeds {
  /** `code_file` → debug ID of the event's `sourcemap` images. */
  images: Map<string, string>
  debugIds: Set<string>
  /** Key: the frame's path; value: the manifest URLs it may have been uploaded under. */
  urls: Map<string, string[]>
  release: string | null
  dist: string
}

/** The maps loaded for an event's needs (null: looked up, none stored). */
export interface LoadedMaps {
  byDebugId: Map<string, ParsedMap | null>
  byUrl: Map<string, ParsedMap | null>
}

const JS_PLATFORMS = new Set(['javascript', 'node'])

/** The stack traces of an event that carry frames: exceptions, the event's own, threads'. */
function stacktraces(event: Json): Json[] {
  const out: Json[] = []
  const values = isObj(event['exception']) ? event['exception']['values'] : event['exception']
  if (Array.isArray(values)) {
    for (const v of values) if (isObj(v) && isObj(v['stacktrace'])) out.push(v['stacktrace'])
  }
  if (isObj(event['stacktrace'])) out.push(event['stacktrace'])
  const threads = isObj(event['threads']) ? event['threads']['values'] : undefined
  if (Array.isArray(threads)) {
    for (const t of threads) if (isObj(t) && isObj(t['stacktrace'])) out.push(t['stacktrace'])
  }
  return out
}

function framesOf(st: Json): Json[] {
  const f = st['frames']
  return Array.isArray(f) ? f.filter(isObj).slice(-MAX_FRAMES) : []
}

const debugIds = new Map<string, string | undefined>()

/** A debug ID as the store keys it (lower-case, hyphenated), or undefined. */
export function debugIdKey(v: unknown): string | undefined {
  if (typeof v !== 'string' || v.length > 64) return undefined
  // The same few IDs recur in every event of an app: remembered, bounded.
  if (debugIds.has(v)) return debugIds.get(v)
  const key = debugIdKeyOf(v)
  if (debugIds.size >= 4096) debugIds.clear()
  debugIds.set(v, key)
  return key
}

function debugIdKeyOf(v: string): string | undefined {
  const hex = v
    .toLowerCase()
    .replace(/-sourcemap$/, '')
    .replaceAll('-', '')
  if (!/^[0-9a-f]{32}$/.test(hex)) return undefined
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** `code_file` → debug ID of the event's `debug_meta.images` of type `sourcemap`. */
function debugImages(event: Json): Map<string, string> {
  const out = new Map<string, string>()
  const meta = event['debug_meta']
  const images = isObj(meta) ? meta['images'] : undefined
  if (!Array.isArray(images)) return out
  for (const img of images.slice(0, 1000)) {
    if (!isObj(img) || img['type'] !== 'sourcemap') continue
    const file = img['code_file']
    const id = debugIdKey(img['debug_id'] ?? img['debugId'])
    if (typeof file === 'string' && id !== undefined) out.set(file, id)
  }
  return out
}

const pathOf = (f: Json): string | undefined => {
  const p = f['abs_path'] ?? f['filename']
  return typeof p === 'string' && p !== '' ? p : undefined
}

/**
 * A frame as the client sent it, for `raw_stacktrace`: without the note an earlier resolution
 * (at ingest, before the bundle was uploaded) left in its `data`, which is the server's, not
 * the client's, and no longer true once the frame maps.
 */
function asSent(f: Json): Json {
  const data = f['data']
  if (!isObj(data) || data['sourcemap_error'] === undefined) return { ...f }
  const { sourcemap_error: _note, debug_id: _id, ...rest } = data
  const out = { ...f }
  if (Object.keys(rest).length > 0) out['data'] = rest
  else delete out['data']
  return out
}

/**
 * The manifest URLs a frame's file may have been uploaded under with `--release`: the URL as
 * sent, without its query, and the `~/path` form the CLI writes (host left out), as Sentry
 * matches them. A file on disk (`/srv/app/server.js`, Node) is also looked for as
 * `~/srv/app/server.js` (what `--url-prefix '~/srv/app'` writes) and `file:///srv/app/server.js`,
 * and a `file://` URL as its plain path, so an upload under any of the three forms is found.
 */
export function urlCandidates(path: string): string[] {
  const out = [path]
  const noHash = path.split('#')[0] ?? path
  const noQuery = noHash.split('?')[0] ?? noHash
  out.push(noQuery)
  const m = /^[a-z][a-z0-9+.-]*:\/\/[^/]*(\/[^?#]*)(\?[^#]*)?/i.exec(path)
  if (m !== null) {
    if (m[2] !== undefined) out.push(`~${m[1]}${m[2]}`)
    out.push(`~${m[1]}`)
    if (/^file:/i.test(path)) out.push(`${m[1]}`)
  } else if (noQuery.startsWith('/') && !noQuery.startsWith('//')) {
    out.push(`~${noQuery}`, `file://${noQuery}`)
  }
  return [...new Set(out)].slice(0, 6)
}

/**
 * What an event needs to be resolved, or undefined when it cannot use source maps at all (not
 * JavaScript, no frames with a position). Cheap: walks the frames, loads nothing.
 */
export function sourceMapNeeds(event: Json): SourceMapNeeds | undefined {
  const platform = event['platform']
  if (typeof platform === 'string' && !JS_PLATFORMS.has(platform)) return undefined
  const images = debugImages(event)
  const release = typeof event['release'] === 'string' ? event['release'] : null
  const dist = typeof event['dist'] === 'string' ? event['dist'] : ''
  const needs: SourceMapNeeds = { images, debugIds: new Set(), urls: new Map(), release, dist }
  let any = false
  for (const st of stacktraces(event)) {
    for (const f of framesOf(st)) {
      const path = pathOf(f)
      if (path === undefined || typeof f['lineno'] !== 'number') continue
      if (isObj(f['data']) && f['data']['symbolicated'] === true) continue
      const id = images.get(path)
      if (id !== undefined) {
        needs.debugIds.add(id)
        any = true
      } else if (release !== null) {
        needs.urls.set(path, urlCandidates(path))
        any = true
      }
    }
  }
  return any ? needs : undefined
}

/** A path's percent-escapes decoded (`%40sentry` → `@sentry`, as Turbopack writes them). */
function decodePath(p: string): string {
  if (!p.includes('%')) return p
  try {
    return decodeURIComponent(p)
  } catch {
    return p
  }
}

/**
 * The path shown for an original source: percent-escapes decoded, `webpack://app/`,
 * `turbopack:///[project]/`, `./` and leading `../` dropped, `/./` segments collapsed
 * (exported for its test). A webpack namespace whose `webpack://` the CLI stripped
 * (`@sentry/webpack-plugin` uploads `app/./src/util.js` for `webpack://app/./src/util.js`)
 * is dropped too, so the plugin's upload and the map as webpack wrote it show one file.
 */
export function shownSource(source: string): string {
  return (
    decodePath(source)
      .replace(/^webpack:\/\/[^/]*\//, '')
      // Turbopack (Next.js 15+): `turbopack:///[project]/app/page.tsx`.
      .replace(/^turbopack:\/\/\/(?:\[[^\]/]*\]\/)?/, '')
      // Webpack's `[namespace]/./[resource path]` with its scheme stripped.
      .replace(/^[\w@.-]+\/\.\//, '')
      .replace(/\/(?:\.\/)+/g, '/')
      .replace(/^(\.\.?\/)+/, '')
      .slice(0, 1024)
  )
}

const absCache = new Map<string, string>()

/** The original source as a URL next to the minified file (Sentry's `abs_path` of a frame). */
function absSource(source: string, minifiedPath: string): string {
  const key = `${source}\n${minifiedPath}`
  let v = absCache.get(key)
  if (v === undefined) {
    v = absSourceOf(source, minifiedPath)
    if (absCache.size >= 4096) absCache.clear()
    absCache.set(key, v)
  }
  return v
}

function absSourceOf(source: string, minifiedPath: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(source)) return source.slice(0, 1024)
  try {
    return new URL(source, minifiedPath).href.slice(0, 1024)
  } catch {
    return shownSource(source)
  }
}

/**
 * Whether a frame's file was served under a URL (`https://…/app.min.js`, `app:///dist/…`), the
 * files a browser or a bundled app runs and a source map is uploaded for. A file on the
 * server's disk (`/srv/app/index.js`, `file://…`) or Node's own (`node:internal/…`) is what
 * plain Node code runs as written: without a debug ID it is not said to lack a source map
 * (the advice to upload one would be wrong), though a map uploaded under its path is used.
 * Exported for its test.
 */
export const servedFile = (path: string): boolean =>
  /^[a-z][a-z0-9+.-]*:\/\//i.test(path) && !/^file:/i.test(path)

interface FrameResult {
  map: ParsedMap | undefined
  pos: OriginalPosition | undefined
  error?: { code: FrameError; debugId?: string }
}

function lookupFrame(
  f: Json,
  images: Map<string, string>,
  needs: SourceMapNeeds,
  maps: LoadedMaps,
): FrameResult | undefined {
  const path = pathOf(f)
  const line = f['lineno']
  if (path === undefined || typeof line !== 'number') return undefined
  if (isObj(f['data']) && f['data']['symbolicated'] === true) return undefined
  const col = typeof f['colno'] === 'number' ? f['colno'] : 1
  const id = images.get(path)
  let map: ParsedMap | undefined
  if (id !== undefined) {
    map = maps.byDebugId.get(id) ?? undefined
    if (map === undefined)
      return { map, pos: undefined, error: { code: 'missing_source_map', debugId: id } }
  } else if (needs.release !== null) {
    map = maps.byUrl.get(path) ?? undefined
    if (map === undefined)
      return servedFile(path)
        ? { map, pos: undefined, error: { code: 'no_release_artifact' } }
        : undefined
  } else {
    return servedFile(path)
      ? { map: undefined, pos: undefined, error: { code: 'no_debug_id' } }
      : undefined
  }
  const pos = map.lookup(line, col)
  if (pos === undefined) return { map, pos: undefined, error: { code: 'position_outside_map' } }
  return { map, pos }
}

/**
 * Rewrites the event's frames in place from the loaded maps (the digest's input, so grouping
 * sees the original frames): file, line, column, function and five lines of context; the
 * frames as they came are kept as the exception's `raw_stacktrace`. A frame that cannot be
 * mapped stays as it came with `data.sourcemap_error` saying why. The function name of a
 * frame is the original name of the token at its *caller's* call site (the identifier the
 * caller called), which is what a minifier renamed; the outermost frame keeps its own.
 * Returns the ids of the bundles used and whether anything changed.
 */
export function rewriteFrames(
  event: Json,
  needs: SourceMapNeeds,
  maps: LoadedMaps,
): { changed: boolean; bundles: Set<number> } {
  const images = needs.images
  const bundles = new Set<number>()
  let changed = false
  const values = isObj(event['exception']) ? event['exception']['values'] : event['exception']
  const owners = new Map<Json, Json>()
  if (Array.isArray(values)) {
    for (const v of values) if (isObj(v) && isObj(v['stacktrace'])) owners.set(v['stacktrace'], v)
  }
  for (const st of stacktraces(event)) {
    const frames = framesOf(st)
    const results = frames.map((f) => lookupFrame(f, images, needs, maps))
    if (results.every((r) => r === undefined)) continue
    const raw = frames.map(asSent)
    let mapped = false
    results.forEach((r, i) => {
      const f = frames[i] as Json
      if (r === undefined) return
      changed = true
      if (r.pos === undefined || r.map === undefined) {
        const data: Json = isObj(f['data']) ? { ...f['data'] } : {}
        data['sourcemap_error'] = r.error?.code
        if (r.error?.debugId !== undefined) data['debug_id'] = r.error.debugId
        f['data'] = data
        return
      }
      mapped = true
      bundles.add(r.map.bundleId)
      if (r.map.minifiedBundleId !== undefined) bundles.add(r.map.minifiedBundleId)
      const path = pathOf(f) ?? ''
      // The function's own scope name in the minified file, else the name the caller called.
      const own = r.map.scopeName(
        f['lineno'] as number,
        typeof f['colno'] === 'number' ? f['colno'] : 1,
      )
      const caller = own ?? (i > 0 ? results[i - 1]?.pos?.name : undefined)
      f['abs_path'] = absSource(r.pos.source, path)
      f['filename'] = shownSource(r.pos.source)
      f['lineno'] = r.pos.line
      f['colno'] = r.pos.column
      // The Node SDK's `module` named the minified file (`806`, Turbopack's
      // `[root-of-the-server]__4aa269f5._`), whose chunk hash changes with each build, and it
      // would group the frame ahead of its source. Sentry sends its processor no `module` and
      // keeps only the one derived from the original source; the raw frame keeps the SDK's.
      delete f['module']
      if (caller !== undefined && caller !== null) f['function'] = caller
      // A frame of an installed package (Angular's maps name them `node_modules/zone.js/…`) is
      // no app code, whatever the browser SDK, which marks the whole bundle in-app, said.
      if (installedDependency(f)) f['in_app'] = false
      const data: Json = { symbolicated: true, sourcemap: r.map.url }
      if (r.pos.context !== undefined) {
        f['pre_context'] = r.pos.context.pre
        f['context_line'] = r.pos.context.line
        f['post_context'] = r.pos.context.post
      } else {
        delete f['pre_context']
        delete f['context_line']
        delete f['post_context']
        data['sourcemap_error'] = 'missing_sources_content'
      }
      f['data'] = data
    })
    const owner = owners.get(st)
    if (mapped && owner !== undefined && owner['raw_stacktrace'] === undefined) {
      owner['raw_stacktrace'] = { frames: raw }
    }
  }
  return { changed, bundles }
}
