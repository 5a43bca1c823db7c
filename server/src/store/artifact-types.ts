/** The manifest types of an artifact-bundle file that the store indexes. */
export type ArtifactFileType = 'minified_source' | 'source_map' | 'source' | 'indexed_ram_bundle'

/** One file of an assembled artifact bundle, ready to store (its bytes deflated). */
export interface ArtifactFileToStore {
  /** Position in the bundle's manifest, so a bundle's files keep a stable order. */
  ord: number
  fileType: string
  /** The manifest URL (`~/app.min.js`, or absolute). */
  url: string
  /** Lower-case hyphenated UUID, or null when the file has none. */
  debugId: string | null
  /** For a minified file: the URL of its source map (its `Sourcemap` header, resolved). */
  mapUrl: string | null
  /** Uncompressed size in bytes. */
  size: number
  /** Raw-deflated bytes. */
  data: Buffer
}

/** A bundle as the assemble call hands it to the store. */
export interface ArtifactBundleToStore {
  teamId: number
  /** sha1 (hex) of the whole bundle: its identity within the team. */
  checksum: string
  size: number
  files: ArtifactFileToStore[]
  /** Projects (of the team) that may resolve against it. */
  projectIds: number[]
  /** `--release`/`--dist` of the upload, '' for none. */
  release: string
  dist: string
  /** The chunks the bundle was joined from, deleted in the same transaction. */
  chunks: string[]
}

/** A source map found for a frame: its bundle (for retention) and its deflated bytes. */
export interface StoredSourceMap {
  bundleId: number
  /**
   * The bundle of the minified file the map was found through, when it is another one (a
   * release file's `.js` names a map uploaded as a file of its own): retention keeps both.
   */
  minifiedBundleId?: number
  url: string
  data: Buffer
  /**
   * The minified file the map is for (deflated), when the bundle has it and it is at most
   * {@link MAX_SCOPED_MINIFIED} bytes: its function scopes name the frames.
   */
  minified?: Buffer
}

/** Largest minified file (uncompressed bytes) whose scopes are read to name frames. */
export const MAX_SCOPED_MINIFIED = 2 * 1024 * 1024

/** What the maintenance job removed. */
export interface ArtifactPruneResult {
  chunks: number
  bundles: number
}

/**
 * Source-map artifacts (docs/source-maps.md): the chunks of uploads in progress, the bundles
 * they assemble into, and the lookups resolution makes. Every lookup takes the project the
 * event belongs to and joins through the bundle's project links.
 */
export interface ArtifactStore {
  /** Stores one verified chunk of a team's upload (a chunk stored already is kept). */
  putArtifactChunk(teamId: number, sha1: string, data: Buffer, now: number): Promise<void>
  /** Which of `sha1s` the team has not uploaded yet. */
  missingArtifactChunks(teamId: number, sha1s: readonly string[]): Promise<string[]>
  /** The bytes of the given chunks (absent ones missing from the map). */
  artifactChunks(teamId: number, sha1s: readonly string[]): Promise<Map<string, Buffer>>
  /** The id of the team's bundle with this checksum, if it was assembled before. */
  findArtifactBundle(teamId: number, checksum: string): Promise<number | undefined>
  /** Links an existing bundle to more projects (a re-upload, or another `--project`). */
  linkArtifactBundle(
    bundleId: number,
    projectIds: readonly number[],
    release: string,
    dist: string,
    now: number,
  ): Promise<void>
  /**
   * Stores an assembled bundle, its files and links and deletes its chunks, in one transaction
   * (an identical bundle stored meanwhile is linked instead). Returns the bundle id.
   */
  storeArtifactBundle(bundle: ArtifactBundleToStore, now: number): Promise<number>
  /** Whether any bundle is linked to the project (the cheap pre-check of resolution). */
  projectHasArtifacts(projectId: number): Promise<boolean>
  /** The newest source map of the project carrying this debug ID. */
  sourceMapByDebugId(projectId: number, debugId: string): Promise<StoredSourceMap | undefined>
  /**
   * The source map of the project's newest minified file with one of `urls` among the bundles
   * uploaded for `release`/`dist`: the map its bundle holds under the file's map URL, else the
   * newest such map of another bundle of that release and dist (release files, docs/source-maps.md).
   */
  sourceMapByUrl(
    projectId: number,
    release: string,
    dist: string,
    urls: readonly string[],
  ): Promise<StoredSourceMap | undefined>
  /** Marks bundles as used by an event at `now` (retention keeps bundles in use). */
  touchArtifactBundles(ids: readonly number[], now: number): Promise<void>
  /**
   * Removes chunks received before `chunkCutoff` and at most `batch` bundles neither created
   * nor used since `bundleCutoff` (undefined: keep every bundle).
   */
  pruneArtifacts(
    chunkCutoff: number,
    bundleCutoff: number | undefined,
    batch: number,
  ): Promise<ArtifactPruneResult>
}
