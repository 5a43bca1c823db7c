import type Database from 'better-sqlite3'
import { type KeyRow, type ProjectRow, toKey, toProject } from '../rows/projects.ts'
import { DEFAULT_TEAM_ID } from '../team-types.ts'
import type { ProjectStore } from '../types.ts'

/** Projects and DSN keys on SQLite. */
export function sqliteProjects(db: Database.Database): ProjectStore {
  const insertProject = db.prepare<[string, string, number, number], ProjectRow>(
    'INSERT INTO projects (name, slug, created_at, team_id) VALUES (?, ?, ?, ?) RETURNING *',
  )
  const insertKey = db.prepare<[number, string, string, string | null, number], KeyRow>(
    'INSERT INTO project_keys (project_id, public_key, label, component, created_at) VALUES (?, ?, ?, ?, ?) RETURNING *',
  )
  const allProjects = db.prepare<[], ProjectRow>('SELECT * FROM projects ORDER BY id')
  const oneProject = db.prepare<[number], ProjectRow>('SELECT * FROM projects WHERE id = ?')
  const keysOf = db.prepare<[number], KeyRow>(
    'SELECT * FROM project_keys WHERE project_id = ? ORDER BY id',
  )
  const keyByPublic = db.prepare<[string], KeyRow>(
    'SELECT * FROM project_keys WHERE public_key = ?',
  )
  const revoke = db.prepare<[number, number, number]>(
    'UPDATE project_keys SET revoked_at = ? WHERE project_id = ? AND id = ? AND revoked_at IS NULL',
  )
  const createWithKey = db.transaction(
    (name: string, slug: string, publicKey: string, teamId: number) => {
      const now = Date.now()
      const p = insertProject.get(name, slug, now, teamId)
      if (p === undefined) throw new Error('project insert returned nothing')
      const k = insertKey.get(p.id, publicKey, 'Default', null, now)
      if (k === undefined) throw new Error('key insert returned nothing')
      return { project: toProject(p), key: toKey(k) }
    },
  )
  return {
    createProject: async (name, slug, publicKey, teamId = DEFAULT_TEAM_ID) =>
      createWithKey(name, slug, publicKey, teamId),
    listProjects: async () => allProjects.all().map(toProject),
    getProject: async (id) => {
      const r = oneProject.get(id)
      return r === undefined ? undefined : toProject(r)
    },
    createKey: async (projectId, label, component, publicKey) => {
      const k = insertKey.get(projectId, publicKey, label, component, Date.now())
      if (k === undefined) throw new Error('key insert returned nothing')
      return toKey(k)
    },
    listKeys: async (projectId) => keysOf.all(projectId).map(toKey),
    revokeKey: async (projectId, keyId) => revoke.run(Date.now(), projectId, keyId).changes > 0,
    findKey: async (publicKey) => {
      const r = keyByPublic.get(publicKey)
      return r === undefined ? undefined : toKey(r)
    },
  }
}
