import type pg from 'pg'
import { type KeyRow, type ProjectRow, toKey, toProject } from '../rows/projects.ts'
import { DEFAULT_TEAM_ID } from '../team-types.ts'
import type { ProjectStore } from '../types.ts'
import { all, first, run, transaction } from './db.ts'

const INSERT_KEY =
  'INSERT INTO project_keys (project_id, public_key, label, component, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING *'

/** Projects and DSN keys on PostgreSQL. */
export function pgProjects(pool: pg.Pool): ProjectStore {
  return {
    createProject: (name, slug, publicKey, teamId = DEFAULT_TEAM_ID) =>
      transaction(pool, async (c) => {
        const now = Date.now()
        const p = await first<ProjectRow>(
          c,
          'INSERT INTO projects (name, slug, created_at, team_id) VALUES ($1, $2, $3, $4) RETURNING *',
          [name, slug, now, teamId],
        )
        if (p === undefined) throw new Error('project insert returned nothing')
        const k = await first<KeyRow>(c, INSERT_KEY, [p.id, publicKey, 'Default', null, now])
        if (k === undefined) throw new Error('key insert returned nothing')
        return { project: toProject(p), key: toKey(k) }
      }),
    listProjects: async () =>
      (await all<ProjectRow>(pool, 'SELECT * FROM projects ORDER BY id')).map(toProject),
    getProject: async (id) => {
      const r = await first<ProjectRow>(pool, 'SELECT * FROM projects WHERE id = $1', [id])
      return r === undefined ? undefined : toProject(r)
    },
    createKey: async (projectId, label, component, publicKey) => {
      const k = await first<KeyRow>(pool, INSERT_KEY, [
        projectId,
        publicKey,
        label,
        component,
        Date.now(),
      ])
      if (k === undefined) throw new Error('key insert returned nothing')
      return toKey(k)
    },
    listKeys: async (projectId) =>
      (
        await all<KeyRow>(pool, 'SELECT * FROM project_keys WHERE project_id = $1 ORDER BY id', [
          projectId,
        ])
      ).map(toKey),
    revokeKey: async (projectId, keyId) =>
      (await run(
        pool,
        'UPDATE project_keys SET revoked_at = $1 WHERE project_id = $2 AND id = $3 AND revoked_at IS NULL',
        [Date.now(), projectId, keyId],
      )) > 0,
    findKey: async (publicKey) => {
      const r = await first<KeyRow>(pool, 'SELECT * FROM project_keys WHERE public_key = $1', [
        publicKey,
      ])
      return r === undefined ? undefined : toKey(r)
    },
  }
}
