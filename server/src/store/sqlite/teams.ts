import type Database from 'better-sqlite3'
import {
  MEMBER_SELECT,
  type MemberRow,
  type TeamRow,
  toMember,
  toRole,
  toTeam,
} from '../rows/teams.ts'
import type { TeamStore } from '../team-types.ts'

/** Teams and memberships on SQLite. */
export function sqliteTeams(db: Database.Database): TeamStore {
  const insertTeam = db.prepare<[string, string, number], TeamRow>(
    'INSERT INTO teams (name, slug, created_at) VALUES (?, ?, ?) RETURNING *',
  )
  const allTeams = db.prepare<[], TeamRow>('SELECT * FROM teams ORDER BY id')
  const oneTeam = db.prepare<[number], TeamRow>('SELECT * FROM teams WHERE id = ?')
  const membersOf = db.prepare<[number], MemberRow>(
    `${MEMBER_SELECT} WHERE m.team_id = ? ORDER BY u.email`,
  )
  const rolesOf = db.prepare<[number], { team_id: number; role: string }>(
    'SELECT team_id, role FROM team_members WHERE user_id = ? ORDER BY team_id',
  )
  const upsert = db.prepare<[number, number, string, number]>(
    `INSERT INTO team_members (team_id, user_id, role, created_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (team_id, user_id) DO UPDATE SET role = excluded.role`,
  )
  const remove = db.prepare<[number, number]>(
    'DELETE FROM team_members WHERE team_id = ? AND user_id = ?',
  )
  const move = db.prepare<[number, number]>('UPDATE projects SET team_id = ? WHERE id = ?')
  return {
    createTeam: async (name, slug) => {
      const r = insertTeam.get(name, slug, Date.now())
      if (r === undefined) throw new Error('team insert returned nothing')
      return toTeam(r)
    },
    listTeams: async () => allTeams.all().map(toTeam),
    getTeam: async (id) => {
      const r = oneTeam.get(id)
      return r === undefined ? undefined : toTeam(r)
    },
    listMembers: async (teamId) => membersOf.all(teamId).map(toMember),
    membershipsOf: async (userId) =>
      rolesOf.all(userId).map((r) => ({ teamId: r.team_id, role: toRole(r.role) })),
    setMember: async (teamId, userId, role) => {
      upsert.run(teamId, userId, role, Date.now())
    },
    removeMember: async (teamId, userId) => remove.run(teamId, userId).changes > 0,
    moveProject: async (projectId, teamId) => move.run(teamId, projectId).changes > 0,
  }
}
