import type pg from 'pg'
import {
  MEMBER_SELECT,
  type MemberRow,
  type TeamRow,
  toMember,
  toRole,
  toTeam,
} from '../rows/teams.ts'
import type { TeamStore } from '../team-types.ts'
import { all, first, run } from './db.ts'

/** Teams and memberships on PostgreSQL. */
export function pgTeams(pool: pg.Pool): TeamStore {
  return {
    createTeam: async (name, slug) => {
      const r = await first<TeamRow>(
        pool,
        'INSERT INTO teams (name, slug, created_at) VALUES ($1, $2, $3) RETURNING *',
        [name, slug, Date.now()],
      )
      if (r === undefined) throw new Error('team insert returned nothing')
      return toTeam(r)
    },
    listTeams: async () =>
      (await all<TeamRow>(pool, 'SELECT * FROM teams ORDER BY id')).map(toTeam),
    getTeam: async (id) => {
      const r = await first<TeamRow>(pool, 'SELECT * FROM teams WHERE id = $1', [id])
      return r === undefined ? undefined : toTeam(r)
    },
    listMembers: async (teamId) =>
      (
        await all<MemberRow>(pool, `${MEMBER_SELECT} WHERE m.team_id = $1 ORDER BY u.email`, [
          teamId,
        ])
      ).map(toMember),
    membershipsOf: async (userId) =>
      (
        await all<{ team_id: number; role: string }>(
          pool,
          'SELECT team_id, role FROM team_members WHERE user_id = $1 ORDER BY team_id',
          [userId],
        )
      ).map((r) => ({ teamId: r.team_id, role: toRole(r.role) })),
    setMember: async (teamId, userId, role) => {
      await run(
        pool,
        `INSERT INTO team_members (team_id, user_id, role, created_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (team_id, user_id) DO UPDATE SET role = excluded.role`,
        [teamId, userId, role, Date.now()],
      )
    },
    removeMember: async (teamId, userId) =>
      (await run(pool, 'DELETE FROM team_members WHERE team_id = $1 AND user_id = $2', [
        teamId,
        userId,
      ])) > 0,
    moveProject: async (projectId, teamId) =>
      (await run(pool, 'UPDATE projects SET team_id = $1 WHERE id = $2', [teamId, projectId])) > 0,
  }
}
