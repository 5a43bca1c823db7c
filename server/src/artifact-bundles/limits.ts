/**
 * Bounds of the source-map upload surface (docs/source-maps.md "Limits"). The chunk options
 * tell the CLI the first four; the rest bound what one bundle may make the server read.
 */
export const ARTIFACT_LIMITS = {
  /** Bytes per chunk (8 MiB, like Sentry; a power of two, which sentry-cli ≤ 2.39.1 needs). */
  chunkSize: 8 * 1024 * 1024,
  /** Chunks per multipart request. */
  chunksPerRequest: 8,
  /** Bytes per chunk-upload request body. */
  maxRequestSize: 32 * 1024 * 1024,
  /** Bytes of one assembled bundle (the CLI's `maxFileSize`). */
  maxBundleSize: 64 * 1024 * 1024,
  /** Chunks one assemble call may name. */
  maxChunks: 64 / 8 + 1,
  /** ZIP entries per bundle. */
  maxEntries: 10_000,
  /** Uncompressed bytes of one file of a bundle. */
  maxFileBytes: 64 * 1024 * 1024,
  /** Uncompressed bytes of all files of a bundle. */
  maxTotalBytes: 256 * 1024 * 1024,
  /** Largest uncompressed/compressed ratio of an entry over 1 MiB (a zip bomb's is ≫ 1000). */
  maxRatio: 200,
  /** Projects one assemble call may name. */
  maxProjects: 50,
} as const
