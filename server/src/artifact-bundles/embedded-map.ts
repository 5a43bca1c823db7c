import { ARTIFACT_LIMITS } from './limits.ts'

/** Most bytes after the `sourceMappingURL` comment (comments only) for it to count. */
const TAIL_BYTES = 4096

/**
 * The `//# sourceMappingURL=` reference at the end of a minified file (or `//@`, the old form),
 * or undefined. Exported because an upload with no `Sourcemap` header for a file that embeds
 * its map (`esbuild --sourcemap=inline`; sentry-cli prints "embedded sourcemap") names the map
 * only there, as Sentry reads it. Only the last such comment counts, as for a browser, and it
 * must start its line and be followed by nothing but comments (sentry-cli's `//# debugId=`).
 */
export function sourceMappingUrlOf(file: Buffer): string | undefined {
  // A data URL is as long as its map, so the marker is searched from the end of the bytes;
  // only the reference itself is decoded, never the whole file.
  const at = Math.max(
    file.lastIndexOf('//# sourceMappingURL='),
    file.lastIndexOf('//@ sourceMappingURL='),
  )
  if (at < 0) return undefined
  const lineStart = file.lastIndexOf(0x0a, at) + 1
  if (file.subarray(lineStart, at).toString('utf8').trim() !== '') return undefined
  const from = at + '//# sourceMappingURL='.length
  let end = file.indexOf(0x0a, from)
  if (end < 0) end = file.length
  if (file.length - end > TAIL_BYTES) return undefined
  const rest = file.subarray(end).toString('utf8').split('\n')
  if (!rest.every((l) => l.trim() === '' || l.trim().startsWith('//'))) return undefined
  const ref = file.subarray(from, end).toString('utf8').trim()
  return ref === '' ? undefined : ref
}

/**
 * The bytes of the source map a `data:` URL carries (`data:application/json;base64,…`, with a
 * `charset=utf-8` too, or percent-encoded without `;base64`), or undefined when `ref` is no
 * data URL, names another media type, does not decode, or decodes to more than an uploaded
 * map may be. Exported because bundle-reader.ts stores the embedded map as a map of its own.
 */
export function dataUrlMap(ref: string): Buffer | undefined {
  const m = /^data:([^,]*),/i.exec(ref.slice(0, 256))
  if (m === null) return undefined
  const params = (m[1] ?? '')
    .toLowerCase()
    .split(';')
    .map((p) => p.trim())
  const mediaType = params[0] ?? ''
  if (mediaType !== '' && mediaType !== 'application/json' && mediaType !== 'text/plain') {
    return undefined
  }
  const payload = ref.slice(m[0].length)
  let bytes: Buffer
  if (params.includes('base64')) {
    // Buffer's decoder skips what is not base64; the JSON check that follows refuses garbage.
    if (payload.length > (ARTIFACT_LIMITS.maxFileBytes / 3) * 4 + 4) return undefined
    bytes = Buffer.from(payload, 'base64')
  } else {
    if (payload.length > ARTIFACT_LIMITS.maxFileBytes * 3) return undefined
    try {
      bytes = Buffer.from(decodeURIComponent(payload), 'utf8')
    } catch {
      return undefined
    }
  }
  return bytes.length === 0 || bytes.length > ARTIFACT_LIMITS.maxFileBytes ? undefined : bytes
}
