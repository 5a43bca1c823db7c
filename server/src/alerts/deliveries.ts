import { z } from 'zod'
import type { AlertTiming } from '../config.ts'
import { ApiError } from '../errors.ts'
import { parseInput } from '../http-kit/validate.ts'
import type { AlertDelivery, Store } from '../store/types.ts'

/** Query of `GET /api/0/projects/{id}/alert-deliveries/`. */
export const DeliveryQuery = z.object({
  status: z.enum(['pending', 'sent', 'failed']).optional(),
  issue_id: z.coerce.number().int().positive().optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  cursor: z
    .string()
    .regex(/^\d{1,15}$/)
    .optional(),
})

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

/** A delivery-log entry as the API shows it. */
export const deliveryJson = (d: AlertDelivery) => ({
  id: d.id,
  rule: { id: d.ruleId, name: d.ruleName },
  issue_id: d.issueId,
  event_id: d.eventId,
  trigger: d.triggerKind,
  channel: d.channel.type,
  /** Where it goes: the webhook URL or the e-mail addresses. */
  target: d.channel.type === 'webhook' ? d.channel.url : d.channel.to.join(', '),
  status: d.status,
  attempts: d.attempts,
  last_error: d.lastError,
  /** When the next attempt is due (pending only). */
  next_attempt_at: d.status === 'pending' ? iso(d.nextAttemptAt) : null,
  created_at: iso(d.createdAt),
  updated_at: iso(d.updatedAt),
  sent_at: iso(d.sentAt),
})

/**
 * The delivery log of a project, newest first: `query` is API-shaped (`status`, `issue_id`,
 * `limit`, `cursor`). Returns the page and the cursor of the next one.
 */
export async function listAlertDeliveries(
  store: Store,
  projectId: number,
  query: unknown,
): Promise<{ deliveries: AlertDelivery[]; next?: string }> {
  if ((await store.getProject(projectId)) === undefined)
    throw new ApiError('not_found', 'no such project')
  const q = parseInput(DeliveryQuery, query, 'query')
  return store.listDeliveries(
    projectId,
    { status: q.status, issueId: q.issue_id },
    { limit: q.limit, cursor: q.cursor },
  )
}

/** Delay before the next attempt after `failures` failed ones: base · 2^(failures−1), capped. */
export function retryDelay(
  failures: number,
  timing: Pick<AlertTiming, 'backoffBaseMs' | 'backoffMaxMs'>,
): number {
  const exp = Math.min(Math.max(failures - 1, 0), 30)
  return Math.min(timing.backoffMaxMs, timing.backoffBaseMs * 2 ** exp)
}
