import type { FastifyInstance } from 'fastify'
import { ADMIN, eid, envelopeOf } from './helpers.ts'

/** One summed outcome counter as `GET /outcomes/` returns it. */
export interface TotalRow {
  outcome: string
  reason: string
  category: string
  quantity: number
  label: string
  description: string
}

/** `n` message events with ids `eid(from)`, `eid(from + 1)`, … in one envelope. */
export function eventsEnvelope(from: number, n: number): string {
  const items: [string, unknown][] = []
  for (let i = from; i < from + n; i++) {
    items.push(['event', { event_id: eid(i), message: 'quota test', level: 'error' }])
  }
  return envelopeOf(items)
}

/** Sets (or with null removes) a project's quota through the API. */
export async function setQuota(
  app: FastifyInstance,
  projectId: number,
  quota: { events: number; window_seconds: number } | null,
) {
  const res = await app.inject({
    method: 'PUT',
    url: `/api/0/projects/${projectId}/`,
    headers: ADMIN,
    payload: { quota },
  })
  if (res.statusCode !== 200) throw new Error(`quota update failed: ${res.statusCode} ${res.body}`)
  return res.json<{ quota: unknown }>()
}

/** The project's outcome totals over all time, through the API. */
export async function outcomeTotals(
  app: FastifyInstance,
  projectId: number,
  query: Record<string, string> = {},
): Promise<TotalRow[]> {
  const qs = new URLSearchParams({
    since: '0',
    until: String(Date.now() / 1000 + 86_400),
    ...query,
  })
  const res = await app.inject({
    method: 'GET',
    url: `/api/0/projects/${projectId}/outcomes/?${qs}`,
    headers: ADMIN,
  })
  if (res.statusCode !== 200) throw new Error(`outcomes failed: ${res.statusCode} ${res.body}`)
  return res.json<{ totals: TotalRow[] }>().totals
}

/** Totals as `label/category → quantity`, for compact assertions. */
export async function outcomeMap(
  app: FastifyInstance,
  projectId: number,
  query: Record<string, string> = {},
): Promise<Record<string, number>> {
  const rows = await outcomeTotals(app, projectId, query)
  return Object.fromEntries(rows.map((r) => [`${r.label}/${r.category}`, r.quantity]))
}

/** Number of events stored for the project (sum of its issues' counts). */
export async function storedEvents(app: FastifyInstance, projectId: number): Promise<number> {
  const res = await app.inject({
    method: 'GET',
    url: `/api/0/projects/${projectId}/issues/?limit=1000`,
    headers: ADMIN,
  })
  return res.json<{ count: number }[]>().reduce((n, i) => n + i.count, 0)
}
