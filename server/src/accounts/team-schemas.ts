import { z } from 'zod'
import { PathId } from '../http-kit/schemas.ts'
import { TEAM_ROLES, type TeamRole } from '../store/team-types.ts'

/** A role as the API reads and writes it. */
export const RoleJson = z.enum(TEAM_ROLES as [TeamRole, ...TeamRole[]])

/** A team; `role` is the caller's role in it (null: the instance admin, not a member). */
export const TeamJson = z
  .object({
    id: z.number().int(),
    slug: z.string(),
    name: z.string(),
    created_at: z.string().describe('ISO 8601 time (UTC)'),
    role: RoleJson.nullable(),
  })
  .meta({ id: 'Team' })

/** A member of a team. */
export const MemberJson = z
  .object({
    user_id: z.number().int(),
    email: z.string(),
    role: RoleJson,
    added_at: z.string().describe('ISO 8601 time (UTC)'),
  })
  .meta({ id: 'TeamMember' })

/** Body of creating a team. */
export const CreateTeam = z.object({ name: z.string().trim().min(1).max(100) }).describe('team')

/** Body of adding a member or changing a member's role (the user must exist). */
export const SetMember = z
  .object({ email: z.string().trim().min(3).max(254), role: RoleJson })
  .describe('member')

/** Body of moving a project to another team. */
export const MoveProject = z.object({ team_id: z.number().int().positive() }).describe('move')

/** `{teamId}` alone. */
export const TeamParams = z.object({ teamId: PathId })

/** `{teamId}` and `{userId}`. */
export const MemberParams = z.object({ teamId: PathId, userId: PathId })
