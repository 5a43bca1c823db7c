import type {
  ReleaseFileRecord,
  ReleaseFileStore,
  ReleaseFileToStore,
} from '../release-file-types.ts'
import { type SqlPort, type Steps, step } from '../sql/port.ts'
import { sql } from '../sql/statement.ts'

interface FileRow {
  id: number | string
  name: string
  dist: string
  headers: string
  size: number | string
  sha1: string
  created_at: number | string
}

const toRecord = (r: FileRow): ReleaseFileRecord => {
  let headers: Record<string, string> = {}
  try {
    const parsed: unknown = JSON.parse(r.headers)
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      headers = Object.fromEntries(
        Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string'),
      )
    }
  } catch {
    // A row is only ever written with JSON.stringify; an unreadable one shows no headers.
  }
  return {
    id: Number(r.id),
    name: r.name,
    dist: r.dist,
    headers,
    size: Number(r.size),
    sha1: r.sha1,
    createdAt: Number(r.created_at),
  }
}

const COLUMNS = sql`id, name, dist, headers, size, sha1, created_at`

/**
 * Release files (table `release_files`, each with its one-file bundle in `artifact_*`), written
 * once for both backends.
 */
export function releaseFileQueries(db: SqlPort): ReleaseFileStore {
  return {
    storeReleaseFile: (f, now) => db.transaction(() => storeSteps(f, now)),
    listReleaseFiles: async (teamId, release, offset, limit) =>
      (
        await db.all<FileRow>(
          sql`SELECT ${COLUMNS} FROM release_files
              WHERE team_id = ${teamId} AND release = ${release}
              ORDER BY name, dist, id LIMIT ${limit} OFFSET ${offset}`,
        )
      ).map(toRecord),
    getReleaseFile: async (teamId, release, id) => {
      const r = await db.first<FileRow>(
        sql`SELECT ${COLUMNS} FROM release_files
            WHERE team_id = ${teamId} AND release = ${release} AND id = ${id}`,
      )
      return r === undefined ? undefined : toRecord(r)
    },
    // The row, the file and the links go with the bundle (ON DELETE CASCADE on both backends).
    deleteReleaseFile: async (teamId, release, id) =>
      (await db.run(
        sql`DELETE FROM artifact_bundles WHERE id IN (SELECT bundle_id FROM release_files
              WHERE team_id = ${teamId} AND release = ${release} AND id = ${id})`,
      )) > 0,
    deleteReleaseFiles: (teamId, release) =>
      db.run(
        sql`DELETE FROM artifact_bundles WHERE id IN (SELECT bundle_id FROM release_files
              WHERE team_id = ${teamId} AND release = ${release})`,
      ),
  }
}

function* storeSteps(f: ReleaseFileToStore, now: number): Steps<ReleaseFileRecord | undefined> {
  // The bundle's checksum names the file's place (release, dist, name), not its bytes: two
  // names of the same bytes are two files, and a second upload to one place conflicts here.
  const checksum = `release-file:${JSON.stringify([f.release, f.dist, f.name])}`
  const bundle = yield* step.first<{ id: number | string }>(
    sql`INSERT INTO artifact_bundles (team_id, checksum, size, file_count, created_at, last_used_at)
        VALUES (${f.teamId}, ${checksum}, ${f.file.size}, 1, ${now}, ${now})
        ON CONFLICT (team_id, checksum) DO NOTHING RETURNING id`,
  )
  if (bundle === undefined) return undefined
  const row = yield* step.first<FileRow>(
    sql`INSERT INTO release_files (team_id, release, dist, name, bundle_id, sha1, size, headers, created_at)
        VALUES (${f.teamId}, ${f.release}, ${f.dist}, ${f.name}, ${bundle.id}, ${f.sha1},
          ${f.file.size}, ${JSON.stringify(f.headers)}, ${now})
        RETURNING ${COLUMNS}`,
  )
  if (row === undefined) throw new Error('release file row not returned by its insert')
  const a = f.file
  yield* step.run(
    sql`INSERT INTO artifact_files (bundle_id, ord, file_type, url, debug_id, map_url, size, data)
        VALUES (${bundle.id}, 0, ${a.fileType}, ${a.url}, ${a.debugId}, ${a.mapUrl}, ${a.size}, ${a.data})`,
  )
  for (const p of f.projectIds) {
    yield* step.run(
      sql`INSERT INTO artifact_links (project_id, bundle_id, release, dist, created_at)
          VALUES (${p}, ${bundle.id}, ${f.release}, ${f.dist}, ${now})
          ON CONFLICT (project_id, bundle_id, release, dist) DO NOTHING`,
    )
  }
  return toRecord(row)
}
