import { z } from 'zod'
import { actorOf } from '../audit/record.ts'
import { INSTANCE_ADMIN } from '../http/route-access.ts'
import { requireAdmin } from '../http-kit/admin-only.ts'
import type { ApiScope } from '../http-kit/openapi.ts'
import { bodyErrorResponses, ErrorBody, errorResponses, PathId } from '../http-kit/schemas.ts'
import type { Services } from '../services.ts'
import { inviteJson, inviteUser, revokeInvite, setUserActive, userJson } from './lifecycle.ts'

/** A user as the API shows it. */
const UserJson = z
  .object({
    id: z.number().int(),
    email: z.string(),
    is_admin: z.boolean(),
    created_at: z.string(),
    deactivated_at: z.string().nullable(),
  })
  .meta({ id: 'User' })

/** A pending invitation as the API shows it. */
const InviteJson = z
  .object({
    id: z.number().int(),
    email: z.string(),
    is_admin: z.boolean(),
    created_at: z.string(),
    expires_at: z.string(),
  })
  .meta({ id: 'Invitation' })

/** Body of `POST /api/0/invitations/`. */
export const CreateInvite = z
  .strictObject({
    email: z.email().max(320),
    is_admin: z.boolean().default(false),
  })
  .describe('invitation')

const conflict = { 409: ErrorBody.describe('Conflicts with the current state') }

/**
 * Instance-admin routes of the user lifecycle: `GET /api/0/users/`, deactivate and reactivate,
 * and invitations (`GET/POST /api/0/invitations/`, `DELETE /api/0/invitations/{id}/`). Each
 * handler's first line is its permission check.
 */
export async function userRoutes(app: ApiScope, services: Services): Promise<void> {
  const { store } = services

  app.get(
    '/api/0/users/',
    {
      config: { access: INSTANCE_ADMIN },
      schema: {
        summary: 'Every user of the instance (admins only)',
        response: { 200: z.array(UserJson), ...errorResponses },
      },
    },
    async (req) => {
      requireAdmin(req.principal)
      return (await store.listUsers()).map(userJson)
    },
  )

  for (const [verb, active] of [
    ['deactivate', false],
    ['reactivate', true],
  ] as const) {
    app.post(
      `/api/0/users/:userId/${verb}/`,
      {
        config: { access: INSTANCE_ADMIN },
        schema: {
          summary: active
            ? 'Reactivate a user: signing in and its API tokens work again (admins only)'
            : 'Deactivate a user: its sessions end and its API tokens stop at once; the last active admin cannot be (admins only)',
          params: z.object({ userId: PathId }),
          response: { 200: UserJson, ...errorResponses, ...conflict },
        },
      },
      async (req) => {
        requireAdmin(req.principal)
        const actor = actorOf(req.principal ?? { userId: null })
        return userJson(await setUserActive(services, actor, req.params.userId, active))
      },
    )
  }

  app.get(
    '/api/0/invitations/',
    {
      config: { access: INSTANCE_ADMIN },
      schema: {
        summary: 'Pending invitations: not used, revoked or expired (admins only)',
        response: { 200: z.array(InviteJson), ...errorResponses },
      },
    },
    async (req) => {
      requireAdmin(req.principal)
      return (await store.listPendingInvites(Date.now())).map(inviteJson)
    },
  )

  app.post(
    '/api/0/invitations/',
    {
      config: { access: INSTANCE_ADMIN },
      schema: {
        summary:
          'Invite a user by e-mail: a one-time link (7 days), mailed when SMTP is configured and returned here once (admins only)',
        body: CreateInvite,
        response: {
          201: InviteJson.extend({
            link: z.string(),
            emailed: z.boolean(),
            email_error: z.string().optional(),
          }),
          ...bodyErrorResponses,
          ...conflict,
        },
      },
    },
    async (req, reply) => {
      requireAdmin(req.principal)
      const actor = actorOf(req.principal ?? { userId: null })
      const r = await inviteUser(services, actor, {
        email: req.body.email,
        isAdmin: req.body.is_admin,
      })
      return reply.code(201).send({
        ...inviteJson(r.invite),
        link: r.link,
        emailed: r.emailed,
        ...(r.emailError === undefined ? {} : { email_error: r.emailError }),
      })
    },
  )

  app.delete(
    '/api/0/invitations/:invitationId/',
    {
      config: { access: INSTANCE_ADMIN },
      schema: {
        summary: 'Revoke a pending invitation: its link stops working (admins only)',
        params: z.object({ invitationId: PathId }),
        response: { 204: z.null().describe('Revoked'), ...errorResponses },
      },
    },
    async (req, reply) => {
      requireAdmin(req.principal)
      await revokeInvite(
        services,
        actorOf(req.principal ?? { userId: null }),
        req.params.invitationId,
      )
      return reply.code(204).send(null)
    },
  )
}
