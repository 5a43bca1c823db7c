import { z } from 'zod'
import { actorOf, recordAudit } from '../audit/record.ts'
import { onProject } from '../http/route-access.ts'
import { keyJson, projectJson } from '../http-kit/format.ts'
import type { ApiScope } from '../http-kit/openapi.ts'
import { bodyErrorResponses, ProjectDetailJson, ProjectParams } from '../http-kit/schemas.ts'
import { pathProject } from '../http-kit/validate.ts'
import type { QuotaGate } from '../ingest/quota.ts'
import type { Quota, Store } from '../store/types.ts'

/** A quota as the API reads and writes it: `events` event items per `window_seconds`. */
export const QuotaInput = z.strictObject({
  events: z.number().int().min(0).max(1_000_000_000),
  window_seconds: z
    .number()
    .int()
    .min(1)
    .max(31 * 86_400),
})

/** Body of `PUT /api/0/projects/{id}/`: `quota` (null removes it). */
export const UpdateProject = z
  .strictObject({ quota: QuotaInput.nullable().optional() })
  .describe('project update')

/** A stored quota as the API shows it (`null` = unlimited). */
export const quotaJson = (q: Quota | null) =>
  q === null ? null : { events: q.events, window_seconds: q.windowSeconds }

/** `PUT /api/0/projects/{id}/`: project settings, for now the event quota. */
export async function quotaRoutes(
  app: ApiScope,
  deps: { store: Store; quota: QuotaGate; baseUrl: () => string },
): Promise<void> {
  const { store, quota, baseUrl } = deps
  app.put(
    '/api/0/projects/:projectId/',
    {
      config: { access: onProject('project:admin') },
      schema: {
        summary: 'Change project settings: `quota` {events, window_seconds}, null = no quota',
        params: ProjectParams,
        body: UpdateProject,
        response: { 200: ProjectDetailJson, ...bodyErrorResponses },
      },
    },
    async (req) => {
      const p = await pathProject(store, req.params.projectId)
      const input = req.body
      if (input.quota !== undefined) {
        const q =
          input.quota === null
            ? null
            : { events: input.quota.events, windowSeconds: input.quota.window_seconds }
        await store.setQuota(p.id, q)
        quota.set(p.id, q)
        await recordAudit(store, actorOf(req.principal ?? { userId: null }), 'quota.change', {
          projectId: p.id,
          target: `project:${p.id}`,
          details: { quota: quotaJson(q) },
        })
      }
      const keys = await store.listKeys(p.id)
      const k = keys.find((x) => x.component === null && x.revokedAt === null) ?? keys[0]
      const dsn = k === undefined ? '' : keyJson(k, baseUrl()).dsn
      return { ...projectJson(p, dsn), quota: quotaJson(await store.getQuota(p.id)) }
    },
  )
}
