/**
 * Quota settings and outcome counters through the management API, for the quota, outcome and
 * unsupported-item cases (kept apart from api.ts, which another area owns).
 */
import { z } from 'zod'
import { adminRequest } from './api.ts'

/** One summed counter of `GET /api/0/projects/{id}/outcomes/`. */
export const outcomeTotalSchema = z.looseObject({
  outcome: z.string(),
  reason: z.string(),
  category: z.string(),
  quantity: z.number().int(),
})
/** An outcome total. */
export type OutcomeTotal = z.infer<typeof outcomeTotalSchema>

/** An event quota as the API takes it. */
export interface QuotaSetting {
  events: number
  window_seconds: number
}

/** Sets (null: removes) a project's event quota. */
export async function setQuota(
  serverUrl: string,
  token: string,
  projectId: number,
  quota: QuotaSetting | null,
): Promise<void> {
  await adminRequest(serverUrl, token, 'PUT', `/api/0/projects/${projectId}/`, { quota })
}

/** Every outcome counter of a project (all time). */
export async function outcomeTotals(
  serverUrl: string,
  token: string,
  projectId: number,
): Promise<OutcomeTotal[]> {
  const until = Math.ceil(Date.now() / 1000) + 86_400
  const body = await adminRequest(
    serverUrl,
    token,
    'GET',
    `/api/0/projects/${projectId}/outcomes/?since=0&until=${until}`,
  )
  return z.object({ totals: z.array(outcomeTotalSchema) }).parse(body).totals
}

/** Totals keyed `outcome[:reason]/category`, e.g. `client_discard:ratelimit_backoff/error`. */
export function outcomeKeys(totals: readonly OutcomeTotal[]): Record<string, number> {
  return Object.fromEntries(
    totals.map((t) => [
      `${t.reason === '' || t.outcome === 'over_quota' ? t.outcome : `${t.outcome}:${t.reason}`}/${t.category}`,
      t.quantity,
    ]),
  )
}
