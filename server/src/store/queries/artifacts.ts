import {
  type ArtifactBundleToStore,
  type ArtifactStore,
  MAX_SCOPED_MINIFIED,
  type StoredSourceMap,
} from '../artifact-types.ts'
import { type SqlPort, type Steps, step } from '../sql/port.ts'
import { join, sql } from '../sql/statement.ts'

interface MapRow {
  bundle_id: number
  url: string
  data: Buffer | Uint8Array
  minified: Buffer | Uint8Array | null
  minified_bundle_id?: number | string
}

const bytes = (b: Buffer | Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength)

const toMap = (r: MapRow | undefined): StoredSourceMap | undefined => {
  if (r === undefined) return undefined
  const map: StoredSourceMap = { bundleId: r.bundle_id, url: r.url, data: bytes(r.data) }
  if (r.minified !== null) map.minified = bytes(r.minified)
  const from = r.minified_bundle_id === undefined ? undefined : Number(r.minified_bundle_id)
  if (from !== undefined && from !== Number(r.bundle_id)) map.minifiedBundleId = from
  return map
}

const list = (values: readonly unknown[]) =>
  join(
    values.map((v) => sql`${v}`),
    ', ',
  )

/** Rows per delete statement of a chunk list (bound values stay far below both limits). */
const CHUNK_BATCH = 500

/** Source-map artifact storage (tables `artifact_*`), written once for both backends. */
export function artifactQueries(db: SqlPort): ArtifactStore {
  return {
    putArtifactChunk: async (teamId, sha1, data, now) => {
      await db.run(
        sql`INSERT INTO artifact_chunks (team_id, sha1, data, created_at)
            VALUES (${teamId}, ${sha1}, ${data}, ${now})
            ON CONFLICT (team_id, sha1) DO NOTHING`,
      )
    },
    missingArtifactChunks: async (teamId, sha1s) => {
      const have = new Set<string>()
      for (let i = 0; i < sha1s.length; i += CHUNK_BATCH) {
        const part = sha1s.slice(i, i + CHUNK_BATCH)
        const rows = await db.all<{ sha1: string }>(
          sql`SELECT sha1 FROM artifact_chunks WHERE team_id = ${teamId} AND sha1 IN (${list(part)})`,
        )
        for (const r of rows) have.add(r.sha1)
      }
      return [...new Set(sha1s)].filter((s) => !have.has(s))
    },
    artifactChunks: async (teamId, sha1s) => {
      const out = new Map<string, Buffer>()
      for (let i = 0; i < sha1s.length; i += CHUNK_BATCH) {
        const part = sha1s.slice(i, i + CHUNK_BATCH)
        const rows = await db.all<{ sha1: string; data: Buffer | Uint8Array }>(
          sql`SELECT sha1, data FROM artifact_chunks WHERE team_id = ${teamId} AND sha1 IN (${list(part)})`,
        )
        for (const r of rows)
          out.set(r.sha1, Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength))
      }
      return out
    },
    findArtifactBundle: async (teamId, checksum) =>
      (
        await db.first<{ id: number }>(
          sql`SELECT id FROM artifact_bundles WHERE team_id = ${teamId} AND checksum = ${checksum}`,
        )
      )?.id,
    linkArtifactBundle: async (bundleId, projectIds, release, dist, now) => {
      await db.transaction(function* (): Steps<void> {
        yield* links(bundleId, projectIds, release, dist, now)
      })
    },
    storeArtifactBundle: (b, now) => db.transaction(() => storeSteps(b, now)),
    projectHasArtifacts: async (projectId) =>
      (await db.first<{ one: number }>(
        sql`SELECT 1 AS one FROM artifact_links WHERE project_id = ${projectId} LIMIT 1`,
      )) !== undefined,
    sourceMapByDebugId: async (projectId, debugId) =>
      toMap(
        await db.first<MapRow>(
          sql`SELECT f.bundle_id, f.url, f.data,
                (SELECT s.data FROM artifact_files s WHERE s.bundle_id = f.bundle_id
                  AND s.debug_id = f.debug_id AND s.file_type = 'minified_source'
                  AND s.size <= ${MAX_SCOPED_MINIFIED} LIMIT 1) AS minified
              FROM artifact_files f
              JOIN artifact_links l ON l.bundle_id = f.bundle_id AND l.project_id = ${projectId}
              WHERE f.debug_id = ${debugId} AND f.file_type = 'source_map'
              ORDER BY f.bundle_id DESC LIMIT 1`,
        ),
      ),
    sourceMapByUrl: async (projectId, release, dist, urls) => {
      if (urls.length === 0) return undefined
      return toMap(
        await db.first<MapRow>(
          // The map may be in another bundle linked for the same release and dist: a release
          // file is a bundle of one file, so its `.js` and `.map` are two bundles. The newest
          // minified file decides; its own bundle's map comes before any other.
          sql`SELECT m.bundle_id, m.url, m.data, s.bundle_id AS minified_bundle_id,
                CASE WHEN s.size <= ${MAX_SCOPED_MINIFIED} THEN s.data END AS minified
              FROM artifact_files s
              JOIN artifact_links l ON l.bundle_id = s.bundle_id AND l.project_id = ${projectId}
                AND l.release = ${release} AND l.dist = ${dist}
              JOIN artifact_files m ON m.url = s.map_url AND m.file_type = 'source_map'
              JOIN artifact_links lm ON lm.bundle_id = m.bundle_id AND lm.project_id = ${projectId}
                AND lm.release = ${release} AND lm.dist = ${dist}
              WHERE s.file_type = 'minified_source' AND s.url IN (${list(urls)})
              ORDER BY s.bundle_id DESC,
                CASE WHEN m.bundle_id = s.bundle_id THEN 0 ELSE 1 END, m.bundle_id DESC
              LIMIT 1`,
        ),
      )
    },
    touchArtifactBundles: async (ids, now) => {
      if (ids.length === 0) return
      await db.run(
        sql`UPDATE artifact_bundles SET last_used_at = ${now}
            WHERE id IN (${list(ids)}) AND last_used_at < ${now}`,
      )
    },
    pruneArtifacts: async (chunkCutoff, bundleCutoff, batch) => {
      const chunks = await db.run(
        sql`DELETE FROM artifact_chunks WHERE created_at < ${chunkCutoff}`,
      )
      if (bundleCutoff === undefined) return { chunks, bundles: 0 }
      // Files and links go with their bundle (ON DELETE CASCADE on both backends).
      const bundles = await db.run(
        sql`DELETE FROM artifact_bundles WHERE id IN (
              SELECT id FROM artifact_bundles
              WHERE last_used_at < ${bundleCutoff} AND created_at < ${bundleCutoff}
              ORDER BY id LIMIT ${batch})`,
      )
      return { chunks, bundles }
    },
  }
}

function* links(
  bundleId: number,
  projectIds: readonly number[],
  release: string,
  dist: string,
  now: number,
): Steps<void> {
  for (const p of projectIds) {
    yield* step.run(
      sql`INSERT INTO artifact_links (project_id, bundle_id, release, dist, created_at)
          VALUES (${p}, ${bundleId}, ${release}, ${dist}, ${now})
          ON CONFLICT (project_id, bundle_id, release, dist) DO NOTHING`,
    )
  }
}

function* storeSteps(b: ArtifactBundleToStore, now: number): Steps<number> {
  // An identical bundle assembled meanwhile (two CLI polls, two nodes) is linked, not stored
  // twice: the unique (team_id, checksum) decides, and only the inserter writes the files.
  const inserted = yield* step.first<{ id: number }>(
    sql`INSERT INTO artifact_bundles (team_id, checksum, size, file_count, created_at, last_used_at)
        VALUES (${b.teamId}, ${b.checksum}, ${b.size}, ${b.files.length}, ${now}, ${now})
        ON CONFLICT (team_id, checksum) DO NOTHING RETURNING id`,
  )
  let id = inserted?.id
  if (id === undefined) {
    const existing = yield* step.first<{ id: number }>(
      sql`SELECT id FROM artifact_bundles WHERE team_id = ${b.teamId} AND checksum = ${b.checksum}`,
    )
    if (existing === undefined) throw new Error('artifact bundle vanished during its insert')
    id = existing.id
  } else {
    for (const f of b.files) {
      yield* step.run(
        sql`INSERT INTO artifact_files (bundle_id, ord, file_type, url, debug_id, map_url, size, data)
            VALUES (${id}, ${f.ord}, ${f.fileType}, ${f.url}, ${f.debugId}, ${f.mapUrl}, ${f.size}, ${f.data})`,
      )
    }
  }
  yield* links(id, b.projectIds, b.release, b.dist, now)
  for (let i = 0; i < b.chunks.length; i += CHUNK_BATCH) {
    const part = b.chunks.slice(i, i + CHUNK_BATCH)
    yield* step.run(
      sql`DELETE FROM artifact_chunks WHERE team_id = ${b.teamId} AND sha1 IN (${list(part)})`,
    )
  }
  return id
}
