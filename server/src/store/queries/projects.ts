import type { Project, ProjectKey } from '../model.ts'
import type { ProjectStore } from '../project-store.ts'
import { type KeyRow, type ProjectRow, toKey, toProject } from '../rows/projects.ts'
import { type SqlPort, type Steps, step } from '../sql/port.ts'
import { type Statement, sql } from '../sql/statement.ts'
import { DEFAULT_TEAM_ID } from '../team-types.ts'

const insertKey = (
  projectId: number,
  publicKey: string,
  label: string,
  component: string | null,
  now: number,
): Statement =>
  sql`INSERT INTO project_keys (project_id, public_key, label, component, created_at)
      VALUES (${projectId}, ${publicKey}, ${label}, ${component}, ${now}) RETURNING *`

/**
 * Projects and DSN keys, written once for both backends. `findKey` is what the ingest key
 * cache (ingest/keys.ts) reads on a miss.
 */
export function projectQueries(db: SqlPort): ProjectStore {
  function* createWithKey(
    name: string,
    slug: string,
    publicKey: string,
    teamId: number,
  ): Steps<{ project: Project; key: ProjectKey }> {
    const now = Date.now()
    const p = yield* step.first<ProjectRow>(
      sql`INSERT INTO projects (name, slug, created_at, team_id)
          VALUES (${name}, ${slug}, ${now}, ${teamId}) RETURNING *`,
    )
    if (p === undefined) throw new Error('project insert returned nothing')
    const k = yield* step.first<KeyRow>(insertKey(p.id, publicKey, 'Default', null, now))
    if (k === undefined) throw new Error('key insert returned nothing')
    return { project: toProject(p), key: toKey(k) }
  }
  return {
    createProject: (name, slug, publicKey, teamId = DEFAULT_TEAM_ID) =>
      db.transaction(() => createWithKey(name, slug, publicKey, teamId)),
    listProjects: async () =>
      (await db.all<ProjectRow>(sql`SELECT * FROM projects ORDER BY id`)).map(toProject),
    getProject: async (id) => {
      const r = await db.first<ProjectRow>(sql`SELECT * FROM projects WHERE id = ${id}`)
      return r === undefined ? undefined : toProject(r)
    },
    createKey: async (projectId, label, component, publicKey) => {
      const k = await db.first<KeyRow>(
        insertKey(projectId, publicKey, label, component, Date.now()),
      )
      if (k === undefined) throw new Error('key insert returned nothing')
      return toKey(k)
    },
    listKeys: async (projectId) =>
      (
        await db.all<KeyRow>(
          sql`SELECT * FROM project_keys WHERE project_id = ${projectId} ORDER BY id`,
        )
      ).map(toKey),
    revokeKey: async (projectId, keyId) =>
      (await db.run(
        sql`UPDATE project_keys SET revoked_at = ${Date.now()}
            WHERE project_id = ${projectId} AND id = ${keyId} AND revoked_at IS NULL`,
      )) > 0,
    findKey: async (publicKey) => {
      const r = await db.first<KeyRow>(
        sql`SELECT * FROM project_keys WHERE public_key = ${publicKey}`,
      )
      return r === undefined ? undefined : toKey(r)
    },
  }
}
