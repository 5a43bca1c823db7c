import type {
  Deploy,
  DeployToStore,
  ReleaseChanges,
  ReleaseProject,
  ReleaseRecord,
  ReleaseStore,
} from '../release-types.ts'
import { type SqlPort, type Steps, step } from '../sql/port.ts'
import { join, type Statement, sql } from '../sql/statement.ts'

interface ReleaseRow {
  id: number
  team_id: number
  version: string
  url: string | null
  date_created: number
  date_started: number | null
  date_released: number | null
  status: string
  commit_count: number
  last_commit: string | null
}

interface DeployRow {
  id: number
  release_id: number
  environment: string
  name: string | null
  url: string | null
  date_started: number | null
  date_finished: number
}

const num = (v: number | string | null): number | null => (v === null ? null : Number(v))

const toDeploy = (r: DeployRow): Deploy => ({
  id: Number(r.id),
  environment: r.environment,
  name: r.name,
  url: r.url,
  dateStarted: num(r.date_started),
  dateFinished: Number(r.date_finished),
})

const list = (values: readonly unknown[]) =>
  join(
    values.map((v) => sql`${v}`),
    ', ',
  )

/** The rows of `releases` with their projects, commit and deploy summaries, in row order. */
function* withDetails(rows: ReleaseRow[]): Steps<ReleaseRecord[]> {
  if (rows.length === 0) return []
  const ids = rows.map((r) => r.id)
  const projects = yield* step.all<ReleaseProject & { release_id: number }>(
    sql`SELECT rp.release_id, p.id, p.slug, p.name FROM release_projects rp
        JOIN projects p ON p.id = rp.project_id
        WHERE rp.release_id IN (${list(ids)}) ORDER BY p.slug`,
  )
  const counts = yield* step.all<{ release_id: number; n: number }>(
    sql`SELECT release_id, COUNT(*) AS n FROM release_deploys
        WHERE release_id IN (${list(ids)}) GROUP BY release_id`,
  )
  const latest = yield* step.all<DeployRow>(
    sql`SELECT d.* FROM release_deploys d
        WHERE d.release_id IN (${list(ids)}) AND d.id = (
          SELECT MAX(id) FROM release_deploys x WHERE x.release_id = d.release_id)`,
  )
  return rows.map((r) => {
    const id = Number(r.id)
    const last = latest.find((d) => Number(d.release_id) === id)
    return {
      id,
      teamId: Number(r.team_id),
      version: r.version,
      url: r.url,
      dateCreated: Number(r.date_created),
      dateStarted: num(r.date_started),
      dateReleased: num(r.date_released),
      status: r.status === 'archived' ? 'archived' : 'open',
      commitCount: Number(r.commit_count),
      lastCommit: r.last_commit,
      projects: projects
        .filter((p) => Number(p.release_id) === id)
        .map((p) => ({ id: Number(p.id), slug: p.slug, name: p.name })),
      deployCount: Number(counts.find((c) => Number(c.release_id) === id)?.n ?? 0),
      lastDeploy: last === undefined ? null : toDeploy(last),
    }
  })
}

function* releaseRow(teamId: number, version: string): Steps<ReleaseRow | undefined> {
  return yield* step.first<ReleaseRow>(
    sql`SELECT * FROM releases WHERE team_id = ${teamId} AND version = ${version}`,
  )
}

function* one(teamId: number, version: string): Steps<ReleaseRecord | undefined> {
  const row = yield* releaseRow(teamId, version)
  if (row === undefined) return undefined
  return (yield* withDetails([row]))[0]
}

/** Applies what `changes` sets to the release row `id` (its columns, then its projects). */
function* apply(id: number, changes: ReleaseChanges): Steps<void> {
  const sets: Statement[] = []
  if (changes.url !== undefined) sets.push(sql`url = ${changes.url}`)
  if (changes.dateStarted !== undefined) sets.push(sql`date_started = ${changes.dateStarted}`)
  if (changes.dateReleased !== undefined) sets.push(sql`date_released = ${changes.dateReleased}`)
  if (changes.status !== undefined) sets.push(sql`status = ${changes.status}`)
  if (changes.commits !== undefined) {
    sets.push(sql`commit_count = ${changes.commits.count}`)
    sets.push(sql`last_commit = ${changes.commits.last}`)
  }
  if (sets.length > 0) {
    yield* step.run(sql`UPDATE releases SET ${join(sets, ', ')} WHERE id = ${id}`)
  }
  for (const projectId of changes.projectIds ?? []) {
    yield* step.run(
      sql`INSERT INTO release_projects (release_id, project_id) VALUES (${id}, ${projectId})
          ON CONFLICT (release_id, project_id) DO NOTHING`,
    )
    // The release's files (sentry-cli 2.x `releases files`) serve every project it ships, also
    // one added after they were uploaded, as in Sentry where they belong to the release.
    yield* step.run(
      sql`INSERT INTO artifact_links (project_id, bundle_id, release, dist, created_at)
          SELECT ${projectId}, f.bundle_id, f.release, f.dist, f.created_at
          FROM release_files f JOIN releases r ON r.team_id = f.team_id AND r.version = f.release
          WHERE r.id = ${id}
          ON CONFLICT (project_id, bundle_id, release, dist) DO NOTHING`,
    )
  }
}

/** Release records and deploys (tables `releases`, `release_*`), written once for both backends. */
export function releaseQueries(db: SqlPort): ReleaseStore {
  return {
    upsertRelease: (teamId, version, changes, now) =>
      db.transaction(function* (): Steps<{ release: ReleaseRecord; created: boolean }> {
        const inserted = yield* step.first<{ id: number }>(
          sql`INSERT INTO releases (team_id, version, date_created, status, commit_count)
              VALUES (${teamId}, ${version}, ${now}, 'open', 0)
              ON CONFLICT (team_id, version) DO NOTHING RETURNING id`,
        )
        const id = inserted?.id ?? (yield* releaseRow(teamId, version))?.id
        if (id === undefined) throw new Error('release insert returned nothing')
        yield* apply(Number(id), changes)
        const release = yield* one(teamId, version)
        if (release === undefined) throw new Error('release vanished in its transaction')
        return { release, created: inserted !== undefined }
      }),
    getRelease: (teamId, version) => db.transaction(() => one(teamId, version)),
    updateRelease: (teamId, version, changes) =>
      db.transaction(function* (): Steps<ReleaseRecord | undefined> {
        const row = yield* releaseRow(teamId, version)
        if (row === undefined) return undefined
        yield* apply(Number(row.id), changes)
        return yield* one(teamId, version)
      }),
    deleteRelease: (teamId, version) =>
      db.transaction(function* (): Steps<boolean> {
        const gone = yield* step.run(
          sql`DELETE FROM releases WHERE team_id = ${teamId} AND version = ${version}`,
        )
        // Projects and deploys go with it (ON DELETE CASCADE on both backends); its release
        // files too, as in Sentry (each file's bundle, which takes its row and links).
        if (gone > 0) {
          yield* step.run(
            sql`DELETE FROM artifact_bundles WHERE id IN (SELECT bundle_id FROM release_files
                  WHERE team_id = ${teamId} AND release = ${version})`,
          )
        }
        return gone > 0
      }),
    listReleases: (teamId, projectId, limit) =>
      db.transaction(function* (): Steps<ReleaseRecord[]> {
        const rows = yield* step.all<ReleaseRow>(
          projectId === undefined
            ? sql`SELECT * FROM releases WHERE team_id = ${teamId}
                  ORDER BY date_created DESC, id DESC LIMIT ${limit}`
            : sql`SELECT r.* FROM releases r
                  JOIN release_projects rp ON rp.release_id = r.id AND rp.project_id = ${projectId}
                  WHERE r.team_id = ${teamId}
                  ORDER BY r.date_created DESC, r.id DESC LIMIT ${limit}`,
        )
        return yield* withDetails(rows)
      }),
    addDeploy: (teamId, version, d: DeployToStore) =>
      db.transaction(function* (): Steps<Deploy | undefined> {
        const row = yield* releaseRow(teamId, version)
        if (row === undefined) return undefined
        const r = yield* step.first<DeployRow>(
          sql`INSERT INTO release_deploys (release_id, environment, name, url, date_started, date_finished)
              VALUES (${row.id}, ${d.environment}, ${d.name}, ${d.url}, ${d.dateStarted}, ${d.dateFinished})
              RETURNING *`,
        )
        if (r === undefined) throw new Error('deploy insert returned nothing')
        return toDeploy(r)
      }),
    listDeploys: (teamId, version) =>
      db.transaction(function* (): Steps<Deploy[] | undefined> {
        const row = yield* releaseRow(teamId, version)
        if (row === undefined) return undefined
        const rows = yield* step.all<DeployRow>(
          sql`SELECT * FROM release_deploys WHERE release_id = ${row.id} ORDER BY id DESC`,
        )
        return rows.map(toDeploy)
      }),
    previousReleaseWithCommits: (teamId, version) =>
      db.transaction(function* (): Steps<ReleaseRecord | undefined> {
        const row = yield* releaseRow(teamId, version)
        const rows = yield* step.all<ReleaseRow>(
          row === undefined
            ? sql`SELECT * FROM releases WHERE team_id = ${teamId} AND last_commit IS NOT NULL
                  ORDER BY date_created DESC, id DESC LIMIT 1`
            : sql`SELECT * FROM releases WHERE team_id = ${teamId} AND last_commit IS NOT NULL
                    AND id <> ${row.id} AND (date_created < ${row.date_created}
                      OR (date_created = ${row.date_created} AND id < ${row.id}))
                  ORDER BY date_created DESC, id DESC LIMIT 1`,
        )
        return (yield* withDetails(rows))[0]
      }),
  }
}
