import { z } from 'zod'
import { INSTANCE_ADMIN } from '../http/route-access.ts'
import { requireAdmin } from '../http-kit/admin-only.ts'
import type { ApiScope } from '../http-kit/openapi.ts'
import { errorResponses } from '../http-kit/schemas.ts'
import type { Services } from '../services.ts'
import type { AuditEntry } from '../store/user-lifecycle-types.ts'

/** Query of `GET /api/0/audit-log/` (also the audit page's). */
export const AuditQuery = z
  .object({
    action: z.string().trim().max(64).optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    cursor: z
      .string()
      .regex(/^\d{1,15}$/)
      .optional(),
  })
  .describe('query')

/** The stored JSON details as an object (anything else is shown under `raw`). */
function detailsOf(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text)
    return typeof v === 'object' && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : { raw: text }
  } catch {
    return { raw: text }
  }
}

/** An audit row as the API shows it. */
export const auditJson = (e: AuditEntry) => ({
  id: e.id,
  at: new Date(e.at).toISOString(),
  actor: { kind: e.actorKind, user_id: e.actorUserId },
  action: e.action,
  project_id: e.projectId,
  target: e.target,
  details: detailsOf(e.details),
})

const AuditJson = z
  .object({
    id: z.number().int(),
    at: z.string(),
    actor: z.object({
      kind: z.enum(['user', 'admin-token', 'system']),
      user_id: z.number().int().nullable(),
    }),
    action: z.string(),
    project_id: z.number().int().nullable(),
    target: z.string(),
    details: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'AuditEntry' })

/** `GET /api/0/audit-log/`: newest first, filter `action`, cursor paging (admins only). */
export async function auditRoutes(app: ApiScope, services: Pick<Services, 'store'>) {
  app.get(
    '/api/0/audit-log/',
    {
      config: { access: INSTANCE_ADMIN },
      schema: {
        summary:
          'The audit log, newest first: who did which administrative action when; filter action; cursor paging (admins only)',
        querystring: AuditQuery,
        response: { 200: z.array(AuditJson), ...errorResponses },
      },
    },
    async (req, reply) => {
      requireAdmin(req.principal)
      const q = req.query
      const page = await services.store.listAudit(
        { action: q.action === '' ? undefined : q.action },
        { limit: q.limit, cursor: q.cursor },
      )
      if (page.next !== undefined) reply.header('x-next-cursor', page.next)
      return page.entries.map(auditJson)
    },
  )
}
