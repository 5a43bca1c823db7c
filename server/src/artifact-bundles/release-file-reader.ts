import { deflateRawSync } from 'node:zlib'
import type { ArtifactFileToStore } from '../store/artifact-types.ts'
import {
  checkMapObject,
  header,
  mapReference,
  normalizeDebugId,
  resolveMapUrl,
  sourceMapJson,
} from './bundle-reader.ts'

/** Longest release-file name (its URL), as for a file of a bundle. */
export const MAX_RELEASE_FILE_NAME = 2048

/**
 * One file of sentry-cli 2.x's `releases files <v> upload` as a bundle file to store. A legacy
 * release file has no type, so the bytes decide: a JSON object with `mappings` or `sections`
 * is a source map (it must parse, else a BundleError names why), anything else a minified file
 * whose map is its `Sourcemap`/`X-SourceMap` header or else its own `//# sourceMappingURL=`,
 * resolved against its name as Sentry resolves it. An embedded `data:` map is not split out
 * (a bundle of one file has room for one file): such a file's frames stay as sent.
 */
export function readReleaseFile(
  name: string,
  bytes: Buffer,
  headers: Record<string, string>,
): ArtifactFileToStore {
  let debugId = normalizeDebugId(header(headers, 'debug-id'))
  let fileType = 'minified_source'
  let mapUrl: string | null = null
  const json = sourceMapJson(bytes)
  if (json !== undefined) {
    fileType = 'source_map'
    debugId = debugId ?? checkMapObject(name, json)
  } else {
    const ref = mapReference(headers, bytes)
    if (ref !== undefined) mapUrl = resolveMapUrl(name, ref.slice(0, MAX_RELEASE_FILE_NAME))
  }
  return {
    ord: 0,
    fileType,
    url: name,
    debugId,
    mapUrl,
    size: bytes.length,
    data: deflateRawSync(bytes),
  }
}
