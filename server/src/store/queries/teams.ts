import {
  MEMBER_SELECT,
  type MemberRow,
  type TeamRow,
  toMember,
  toRole,
  toTeam,
} from '../rows/teams.ts'
import type { SqlPort } from '../sql/port.ts'
import { raw, sql } from '../sql/statement.ts'
import type { TeamStore } from '../team-types.ts'

/** Teams and memberships, written once for both backends. */
export function teamQueries(db: SqlPort): TeamStore {
  return {
    createTeam: async (name, slug) => {
      const r = await db.first<TeamRow>(
        sql`INSERT INTO teams (name, slug, created_at) VALUES (${name}, ${slug}, ${Date.now()}) RETURNING *`,
      )
      if (r === undefined) throw new Error('team insert returned nothing')
      return toTeam(r)
    },
    listTeams: async () =>
      (await db.all<TeamRow>(sql`SELECT * FROM teams ORDER BY id`)).map(toTeam),
    getTeam: async (id) => {
      const r = await db.first<TeamRow>(sql`SELECT * FROM teams WHERE id = ${id}`)
      return r === undefined ? undefined : toTeam(r)
    },
    listMembers: async (teamId) =>
      (
        await db.all<MemberRow>(
          sql`${raw(MEMBER_SELECT)} WHERE m.team_id = ${teamId} ORDER BY u.email`,
        )
      ).map(toMember),
    membershipsOf: async (userId) =>
      (
        await db.all<{ team_id: number; role: string }>(
          sql`SELECT team_id, role FROM team_members WHERE user_id = ${userId} ORDER BY team_id`,
        )
      ).map((r) => ({ teamId: r.team_id, role: toRole(r.role) })),
    setMember: async (teamId, userId, role) => {
      await db.run(
        sql`INSERT INTO team_members (team_id, user_id, role, created_at)
            VALUES (${teamId}, ${userId}, ${role}, ${Date.now()})
            ON CONFLICT (team_id, user_id) DO UPDATE SET role = excluded.role`,
      )
    },
    removeMember: async (teamId, userId) =>
      (await db.run(
        sql`DELETE FROM team_members WHERE team_id = ${teamId} AND user_id = ${userId}`,
      )) > 0,
    moveProject: async (projectId, teamId) =>
      (await db.run(sql`UPDATE projects SET team_id = ${teamId} WHERE id = ${projectId}`)) > 0,
  }
}
