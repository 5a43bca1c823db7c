import { deflateRawSync } from 'node:zlib'
import { TraceMap } from '@jridgewell/trace-mapping'
import yauzl from 'yauzl'
import { urlCandidates } from '../ingest/source-maps/frames.ts'
import type { ArtifactFileToStore } from '../store/artifact-types.ts'
import { dataUrlMap, sourceMappingUrlOf } from './embedded-map.ts'
import { ARTIFACT_LIMITS } from './limits.ts'

/** Why a bundle was refused; `detail` names the file and the reason (the CLI prints it). */
export class BundleError extends Error {}

/** The 8-byte header of a sentry-cli artifact bundle: ASCII `SYSB` and a u32 LE version. */
const MAGIC = Buffer.from('SYSB', 'ascii')

const MANIFEST = 'manifest.json'
const MAX_URL = 2048

type Json = Record<string, unknown>
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * A debug ID as stored and looked up: a lower-case hyphenated UUID. sentry-cli writes that
 * form; 32 bare hex digits and an upper-case or `-sourcemap`-suffixed one are accepted too.
 */
export function normalizeDebugId(v: unknown): string | null {
  if (typeof v !== 'string' || v.length > 64) return null
  const hex = v
    .toLowerCase()
    .replace(/-sourcemap$/, '')
    .replaceAll('-', '')
  if (!/^[0-9a-f]{32}$/.test(hex)) return null
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** A header of a manifest entry or a release file, whatever the case of its name. */
export function header(headers: unknown, name: string): string | undefined {
  if (!isObj(headers)) return undefined
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() === name && typeof v === 'string') return v
  }
  return undefined
}

/**
 * The URL a minified file's `Sourcemap` header points to, resolved against the file's own URL
 * the way the CLI writes both (`~/static/app.js` + `app.js.map` → `~/static/app.js.map`).
 */
export function resolveMapUrl(fileUrl: string, ref: string): string | null {
  if (ref === '' || ref.startsWith('data:')) return null
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(ref) || ref.startsWith('~/')) return ref
  const base = fileUrl.slice(0, fileUrl.lastIndexOf('/') + 1)
  if (ref.startsWith('/')) {
    const origin = /^([a-z][a-z0-9+.-]*:\/\/[^/]+|~)/i.exec(fileUrl)?.[1] ?? '~'
    return origin + ref
  }
  const parts = (base + ref).split('/')
  const out: string[] = []
  for (const p of parts) {
    if (p === '.') continue
    if (p === '..' && out.length > 1) out.pop()
    else out.push(p)
  }
  return out.join('/')
}

/** Reads every entry of the ZIP (bounded), keyed by its name. */
async function readZip(zip: Buffer): Promise<Map<string, Buffer>> {
  let file: yauzl.ZipFile
  try {
    file = await yauzl.fromBufferPromise(zip, { lazyEntries: true, validateEntrySizes: true })
  } catch (err) {
    throw new BundleError(`the bundle is not a ZIP archive (${(err as Error).message})`)
  }
  if (file.entryCount > ARTIFACT_LIMITS.maxEntries) {
    file.close()
    throw new BundleError(
      `the bundle has ${file.entryCount} files, more than the ${ARTIFACT_LIMITS.maxEntries} allowed`,
    )
  }
  const out = new Map<string, Buffer>()
  let total = 0
  return new Promise((resolve, reject) => {
    const fail = (err: unknown) => {
      file.close()
      reject(err instanceof BundleError ? err : new BundleError(String((err as Error).message)))
    }
    file.on('error', fail)
    file.on('end', () => resolve(out))
    file.on('entry', (entry: yauzl.Entry) => {
      const name = entry.fileName
      if (name.endsWith('/')) {
        file.readEntry()
        return
      }
      const size = entry.uncompressedSize
      if (size > ARTIFACT_LIMITS.maxFileBytes) {
        fail(
          new BundleError(
            `file ${name}: ${size} bytes, more than the ${ARTIFACT_LIMITS.maxFileBytes} allowed`,
          ),
        )
        return
      }
      total += size
      if (total > ARTIFACT_LIMITS.maxTotalBytes) {
        fail(
          new BundleError(`the bundle unpacks to more than ${ARTIFACT_LIMITS.maxTotalBytes} bytes`),
        )
        return
      }
      if (size > 1024 * 1024 && size > entry.compressedSize * ARTIFACT_LIMITS.maxRatio) {
        fail(
          new BundleError(
            `file ${name}: compression ratio over ${ARTIFACT_LIMITS.maxRatio}:1 (a zip bomb?)`,
          ),
        )
        return
      }
      file.openReadStream(entry, (err, stream) => {
        if (err !== null) {
          fail(new BundleError(`file ${name}: ${err.message}`))
          return
        }
        const parts: Buffer[] = []
        stream.on('data', (c: Buffer) => parts.push(c))
        stream.on('error', (e: Error) => fail(new BundleError(`file ${name}: ${e.message}`)))
        stream.on('end', () => {
          out.set(name, Buffer.concat(parts))
          file.readEntry()
        })
      })
    })
    file.readEntry()
  })
}

/**
 * Checks that a source map parses; the reason otherwise. Returns its own debug ID, if any.
 * Release files (release-file-reader.ts) are checked by the same rule as bundle files.
 */
export function checkSourceMap(name: string, bytes: Buffer): string | null {
  let json: unknown
  try {
    json = JSON.parse(bytes.toString('utf8'))
  } catch (err) {
    throw new BundleError(`file ${name}: the source map is not JSON (${(err as Error).message})`)
  }
  if (!isObj(json)) throw new BundleError(`file ${name}: the source map is not a JSON object`)
  return checkMapObject(name, json)
}

/** {@link checkSourceMap} of a map already parsed into an object. */
export function checkMapObject(name: string, json: Record<string, unknown>): string | null {
  const sectioned = Array.isArray(json['sections'])
  if (!sectioned && (typeof json['mappings'] !== 'string' || !Array.isArray(json['sources']))) {
    throw new BundleError(`file ${name}: the source map has no "mappings" string or "sources" list`)
  }
  if (!sectioned) {
    try {
      new TraceMap(json as unknown as ConstructorParameters<typeof TraceMap>[0])
    } catch (err) {
      throw new BundleError(
        `file ${name}: the source map does not parse (${(err as Error).message})`,
      )
    }
  }
  return normalizeDebugId(json['debugId'] ?? json['debug_id'])
}

/**
 * Where a minified file names its map: its `Sourcemap` or `X-SourceMap` header, else (the CLI
 * found no reference it could resolve, as for an absolute URL) its own `//# sourceMappingURL=`
 * comment, as Sentry reads it.
 */
export function mapReference(headers: unknown, bytes: Buffer): string | undefined {
  return header(headers, 'sourcemap') ?? header(headers, 'x-sourcemap') ?? sourceMappingUrlOf(bytes)
}

/** What an assembled bundle holds: its files, and the `dist` its manifest names, if any. */
export interface ReadBundle {
  files: ArtifactFileToStore[]
  /**
   * The manifest's `dist` attribute (sentry-cli writes `--dist` there): the legacy release
   * assemble call carries no dist of its own.
   */
  dist: string | undefined
}

/**
 * Reads an assembled artifact bundle (the `SYSB` header, then a ZIP with `manifest.json`) into
 * the files to store: each checked (a source map must parse), bounded (entries, sizes, ratio)
 * and deflated. Throws a {@link BundleError} naming the file and the reason; nothing is
 * returned for a bundle with any bad file, so nothing of it is stored.
 */
export async function readArtifactBundle(bundle: Buffer): Promise<ReadBundle> {
  if (bundle.length < 8 || !bundle.subarray(0, 4).equals(MAGIC)) {
    throw new BundleError('the upload is not an artifact bundle (no SYSB header)')
  }
  let entries: Map<string, Buffer>
  try {
    // sentry-cli writes the ZIP after the header with offsets counted from the file start.
    entries = await readZip(bundle)
  } catch (first) {
    try {
      entries = await readZip(bundle.subarray(8))
    } catch {
      throw first
    }
  }
  const manifestBytes = entries.get(MANIFEST)
  if (manifestBytes === undefined) throw new BundleError('the bundle has no manifest.json')
  let manifest: unknown
  try {
    manifest = JSON.parse(manifestBytes.toString('utf8'))
  } catch (err) {
    throw new BundleError(`manifest.json is not JSON (${(err as Error).message})`)
  }
  const files = isObj(manifest) ? manifest['files'] : undefined
  if (!isObj(files)) throw new BundleError('manifest.json has no "files" object')
  const out: ArtifactFileToStore[] = []
  const embedded: ArtifactFileToStore[] = []
  let embeddedBytes = 0
  let ord = 0
  for (const [path, meta] of Object.entries(files)) {
    if (!isObj(meta))
      throw new BundleError(`manifest.json: entry ${path.slice(0, 200)} is not an object`)
    const bytes = entries.get(path)
    if (bytes === undefined)
      throw new BundleError(
        `file ${path.slice(0, 200)}: listed in manifest.json but not in the ZIP`,
      )
    const type = meta['type']
    const url = meta['url']
    if (typeof type !== 'string' || type.length > 64)
      throw new BundleError(`file ${path}: no "type"`)
    if (typeof url !== 'string' || url === '' || url.length > MAX_URL) {
      throw new BundleError(`file ${path}: no "url" (or longer than ${MAX_URL} characters)`)
    }
    let debugId = normalizeDebugId(header(meta['headers'], 'debug-id'))
    let mapUrl: string | null = null
    const untyped = type === 'source' ? untypedFile(path, bytes, meta['headers']) : undefined
    const fileType = untyped?.fileType ?? type
    if (fileType === 'source_map') {
      // An untyped file was checked (and its map parsed) while its type was told.
      const own = untyped === undefined ? checkSourceMap(path, bytes) : untyped.ownDebugId
      debugId = debugId ?? own
    } else if (fileType === 'minified_source') {
      const ref = mapReference(meta['headers'], bytes)
      if (ref?.startsWith('data:') === true) {
        // An embedded map (`//# sourceMappingURL=data:…`) is stored as a map of its own under
        // the file's URL, so both lookups (debug ID, release + URL) find it as any other map.
        const map = dataUrlMap(ref)
        // A file whose embedded map does not parse is kept without one (its frames stay as
        // sent), not the whole upload refused for it: the map is the bundler's, not the user's.
        const checked = map === undefined ? undefined : embeddedMap(path, map)
        if (map !== undefined && checked !== undefined) {
          const own = checked.debugId
          embeddedBytes += map.length
          if (embeddedBytes > ARTIFACT_LIMITS.maxTotalBytes) {
            throw new BundleError(
              `the embedded source maps unpack to more than ${ARTIFACT_LIMITS.maxTotalBytes} bytes`,
            )
          }
          mapUrl = url
          embedded.push({
            ord: 0,
            fileType: 'source_map',
            url,
            debugId: debugId ?? own,
            mapUrl: null,
            size: map.length,
            data: deflateRawSync(map),
          })
        }
      } else if (ref !== undefined) {
        mapUrl = resolveMapUrl(url, ref.slice(0, MAX_URL))
      }
    }
    out.push({
      ord: ord++,
      fileType,
      url,
      debugId,
      mapUrl,
      size: bytes.length,
      data: deflateRawSync(bytes),
    })
  }
  for (const f of embedded) out.push({ ...f, ord: ord++ })
  const dist = isObj(manifest) ? manifest['dist'] : undefined
  return {
    files: matchMapUrls(out),
    dist: typeof dist === 'string' && dist.length <= 64 ? dist : undefined,
  }
}

/**
 * The bytes as a JSON object shaped as a source map (`mappings` or `sections`), parsed once;
 * undefined for anything else (a file that does not start with `{` is not parsed at all).
 */
export function sourceMapJson(bytes: Buffer): Record<string, unknown> | undefined {
  if (!bytes.subarray(0, 64).toString('utf8').trimStart().startsWith('{')) return undefined
  try {
    const json: unknown = JSON.parse(bytes.toString('utf8'))
    return isObj(json) && ('mappings' in json || 'sections' in json) ? json : undefined
  } catch {
    return undefined
  }
}

/**
 * The type of a file sentry-cli 2.x uploaded untyped (`source`: `releases files <v> upload
 * <dir>` sends every file so, as Sentry's legacy release files had no type): a parsing source
 * map is a `source_map` (with the debug ID it names, checked here), a file naming a map (header
 * or its own `sourceMappingURL` comment, not an embedded one) a `minified_source`, anything
 * else stays `source`. So such an upload resolves frames by release and URL as Sentry resolved
 * its release files.
 */
function untypedFile(
  path: string,
  bytes: Buffer,
  headers: unknown,
): { fileType: string; ownDebugId: string | null } {
  const json = sourceMapJson(bytes)
  if (json !== undefined) {
    try {
      return { fileType: 'source_map', ownDebugId: checkMapObject(path, json) }
    } catch (err) {
      if (err instanceof BundleError) return { fileType: 'source', ownDebugId: null }
      throw err
    }
  }
  const ref = mapReference(headers, bytes)
  const named = ref !== undefined && !ref.startsWith('data:')
  return { fileType: named ? 'minified_source' : 'source', ownDebugId: null }
}

/** An embedded map's debug ID (null: it names none), or undefined when it is no source map. */
function embeddedMap(path: string, map: Buffer): { debugId: string | null } | undefined {
  try {
    return { debugId: checkSourceMap(`${path} (its embedded source map)`, map) }
  } catch (e) {
    if (e instanceof BundleError) return undefined
    throw e
  }
}

/**
 * Points each minified file at the bundle's map the way Sentry finds a release artifact: its
 * reference as written, else the other forms of that URL (query dropped, `~/path` without the
 * host): an absolute `//# sourceMappingURL=https://cdn.example/maps/app.js.map` names the map
 * the CLI uploaded as `~/maps/app.js.map`. A reference is a URL, so its percent-escapes name
 * the file's characters: Turbopack's `//# sourceMappingURL=%5Broot-of-the-server%5D__….js.map`
 * is the map the CLI uploaded as `~/chunks/ssr/[root-of-the-server]__….js.map`. A reference no
 * map of the bundle has stays as it is.
 *
 * A map found so, without a debug ID of its own, takes its minified file's: sentry-cli gives a
 * map its file's ID only when it resolved the reference itself, which it does not for an
 * escaped one, and a frame with a debug ID looks its map up by that ID alone. Without this
 * every server-side frame of a Turbopack build of Next.js stayed minified.
 */
function matchMapUrls(files: ArtifactFileToStore[]): ArtifactFileToStore[] {
  const maps = new Map<string, ArtifactFileToStore>()
  for (const f of files) if (f.fileType === 'source_map') maps.set(f.url, f)
  for (const f of files) {
    if (f.mapUrl === null) continue
    if (!maps.has(f.mapUrl)) {
      const decoded = decodeUrl(f.mapUrl)
      const forms = urlCandidates(f.mapUrl)
      if (decoded !== f.mapUrl) forms.push(...urlCandidates(decoded))
      const found = forms.find((u) => maps.has(u))
      if (found !== undefined) f.mapUrl = found
    }
    const map = maps.get(f.mapUrl)
    if (map !== undefined && map.debugId === null && f.debugId !== null) map.debugId = f.debugId
  }
  return files
}

/** A URL with its percent-escapes decoded, or as it is when they do not decode. */
function decodeUrl(url: string): string {
  if (!url.includes('%')) return url
  try {
    return decodeURIComponent(url)
  } catch {
    return url
  }
}
