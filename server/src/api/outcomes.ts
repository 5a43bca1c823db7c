import { z } from 'zod'
import { componentKeyIds } from '../components/keys.ts'
import { onProject } from '../http/route-access.ts'
import type { ApiScope } from '../http-kit/openapi.ts'
import { errorResponses, ProjectParams } from '../http-kit/schemas.ts'
import { pathProject } from '../http-kit/validate.ts'
import type { OutcomeFilter, Store } from '../store/types.ts'
import { HOUR, hourBuckets, hourRange, iso, RangeQuery } from './time-range.ts'

/** The outcome kinds, in the order the Outcomes view shows them (docs/outcomes.md). */
export const OUTCOME_KINDS = [
  'accepted',
  'duplicate',
  'rejected',
  'over_quota',
  'filtered',
  'unsupported',
  'client_discard',
] as const

/**
 * What each outcome and reason means, for the Outcomes view and `docs/errors.md` (a test keeps
 * that page in step with this table and the error catalogue).
 */
export const OUTCOME_DESCRIPTIONS: Record<string, string> = {
  accepted: 'Stored.',
  duplicate: 'A resend of an event already stored: answered 200, nothing counted twice.',
  over_quota: "Refused with 429: the project's event quota for the window was spent.",
  'over_quota:quota_exceeded':
    "Refused with 429: the project's event quota for the window was spent.",
  filtered:
    "Dropped by one of the project's inbound filters (answered 200, not stored, no quota charged).",
  'filtered:localhost': 'Filtered: sent from localhost.',
  'filtered:browser-extensions': 'Filtered: an error caused by a browser extension.',
  'filtered:legacy-browsers': 'Filtered: sent by a legacy browser.',
  'filtered:web-crawlers': 'Filtered: sent by a web crawler.',
  'filtered:error-message':
    "Filtered: the message matched one of the project's error-message patterns.",
  'filtered:release-version':
    "Filtered: the release matched one of the project's release patterns.",
  'filtered:ip-address': "Filtered: sent from one of the project's blocked client addresses.",
  unsupported: 'Dropped: this server does not store this item type.',
  'unsupported:unknown': 'Dropped: an item type neither this server nor Relay knows.',
  'rejected:auth_missing': 'Rejected (401): the request carried no DSN key.',
  'rejected:auth_invalid': 'Rejected (401): malformed credentials.',
  'rejected:unknown_key': 'Rejected (403): the DSN key is unknown.',
  'rejected:revoked_key': 'Rejected (403): the DSN key was revoked.',
  'rejected:wrong_project': 'Rejected (403): the DSN key belongs to another project.',
  'rejected:project_id': 'Rejected (400): the project id in the URL is not a number.',
  'rejected:auth_version': 'Rejected (400): unsupported protocol version.',
  'rejected:no_data': 'Rejected (400): empty request body.',
  'rejected:invalid_compression': 'Rejected: the body could not be decompressed.',
  'rejected:invalid_envelope': 'Rejected (400): malformed envelope.',
  'rejected:invalid_json': 'Rejected (400): an item payload is not a JSON object.',
  'rejected:too_large': 'Rejected (413): over the size limits.',
  'rejected:overloaded':
    'Refused with 429: the server was shedding load (bytes or requests in flight over its budget); the SDK retries after Retry-After.',
  'rejected:storage_unavailable':
    'Refused with 503: the disk is nearly full or the database refused the write; nothing was stored, the SDK retries.',
  'rejected:invalid_client_report': 'Ignored: a client report that could not be read.',
  'rejected:invalid_request': 'Rejected (4xx): the request could not be read.',
  'rejected:internal_error': 'Failed (5xx): a server error; please report it.',
  'rejected:monitor_not_found':
    'Dropped check-in (answered 200): no such monitor and no monitor_config to create it.',
  'rejected:invalid_monitor_config':
    'Dropped check-in (answered 200): its monitor_config could not be used.',
  'rejected:checkin_already_completed':
    'Dropped check-in (answered 200): the run it closes was already finished.',
  'rejected:checkin_environment_mismatch':
    'Dropped check-in (answered 200): the run it closes belongs to another environment.',
  client_discard: 'Never arrived: dropped by the SDK before sending (from its client report).',
  'client_discard:ratelimit_backoff': 'Never arrived: the SDK held it back during a rate limit.',
  'client_discard:network_error': 'Never arrived: the SDK could not reach the server.',
  'client_discard:queue_overflow': "Never arrived: the SDK's send queue was full.",
  'client_discard:send_error': 'Never arrived: the server answered an error status.',
  'client_discard:sample_rate': 'Never sent: dropped by the sample rate.',
  'client_discard:before_send': 'Never sent: dropped by a before_send hook.',
  'client_discard:event_processor': 'Never sent: dropped by an event processor.',
  'client_discard:other':
    'Never arrived: dropped by the SDK for a reason its client report named that is not a known one.',
}

/** The human description of an outcome row. */
export function describeOutcome(outcome: string, reason: string): string {
  return OUTCOME_DESCRIPTIONS[`${outcome}:${reason}`] ?? OUTCOME_DESCRIPTIONS[outcome] ?? outcome
}

/** The short label the view shows: `accepted`, `rejected:invalid_json`, `unsupported:log`. */
export const outcomeLabel = (outcome: string, reason: string): string =>
  reason === '' || outcome === 'over_quota' ? outcome : `${outcome}:${reason}`

/** Query of the outcome endpoints: range (default the last 24 h), key or component. */
export const OutcomeQuery = z
  .object({
    ...RangeQuery,
    key_id: z.coerce.number().int().min(0).optional(),
    component: z.string().max(64).optional(),
    category: z.string().max(64).optional(),
  })
  .describe('query')

const OutcomeTotals = z.object({
  since: z.string(),
  until: z.string(),
  totals: z.array(
    z.object({
      outcome: z.string(),
      reason: z.string(),
      category: z.string(),
      quantity: z.number().int(),
      label: z.string(),
      description: z.string(),
    }),
  ),
})

const OutcomeSeries = z.object({
  since: z.string(),
  until: z.string(),
  interval: z.literal('1h'),
  buckets: z.array(
    z.object({ start: z.string(), outcomes: z.record(z.string(), z.number().int()) }),
  ),
})

/**
 * The Outcomes view's data: `GET /api/0/projects/{id}/outcomes/` (totals by outcome, reason
 * and category) and `.../outcomes/series/` (hourly buckets for the chart). Both take
 * `since`/`until` (whole hours; default the last 24 h), `key_id` and `component`.
 */
export async function outcomeRoutes(app: ApiScope, deps: { store: Store }): Promise<void> {
  const { store } = deps

  const filterOf = async (params: { projectId: number }, q: z.output<typeof OutcomeQuery>) => {
    const projectId = (await pathProject(store, params.projectId)).id
    const { since, until } = hourRange(q, 24 * HOUR)
    let keyIds: number[] | undefined
    if (q.component !== undefined) keyIds = await componentKeyIds(store, projectId, q.component)
    if (q.key_id !== undefined) {
      const id = q.key_id
      keyIds = keyIds === undefined ? [id] : keyIds.filter((k) => k === id)
    }
    const filter: OutcomeFilter = { since, until, keyIds }
    return { projectId, filter, category: q.category }
  }

  app.get(
    '/api/0/projects/:projectId/outcomes/',
    {
      config: { access: onProject('project:read') },
      schema: {
        summary:
          'Outcome totals by outcome, reason and category over [since, until) (whole hours, default the last 24 h); filters key_id, component, category',
        params: ProjectParams,
        querystring: OutcomeQuery,
        response: { 200: OutcomeTotals, ...errorResponses },
      },
    },
    async (req) => {
      const { projectId, filter, category } = await filterOf(req.params, req.query)
      const rows = await store.outcomeTotalsBy(projectId, filter)
      return {
        since: iso(filter.since),
        until: iso(filter.until),
        totals: rows
          .filter((r) => category === undefined || r.category === category)
          .map((r) => ({
            outcome: r.outcome,
            reason: r.reason,
            category: r.category,
            quantity: r.quantity,
            label: outcomeLabel(r.outcome, r.reason),
            description: describeOutcome(r.outcome, r.reason),
          })),
      }
    },
  )

  app.get(
    '/api/0/projects/:projectId/outcomes/series/',
    {
      config: { access: onProject('project:read') },
      schema: {
        summary: 'Hourly outcome buckets for a chart (at most 93 days); same filters',
        params: ProjectParams,
        querystring: OutcomeQuery,
        response: { 200: OutcomeSeries, ...errorResponses },
      },
    },
    async (req) => {
      const { projectId, filter, category } = await filterOf(req.params, req.query)
      const count = hourBuckets(filter)
      const buckets = Array.from({ length: count }, (_, i) => ({
        start: iso(filter.since + i * HOUR),
        outcomes: Object.fromEntries(OUTCOME_KINDS.map((k) => [k, 0])) as Record<string, number>,
      }))
      for (const r of await store.outcomeHours(projectId, filter)) {
        if (category !== undefined && r.category !== category) continue
        const b = buckets[(r.hour - filter.since) / HOUR]
        if (b !== undefined) b.outcomes[r.outcome] = (b.outcomes[r.outcome] ?? 0) + r.quantity
      }
      return {
        since: iso(filter.since),
        until: iso(filter.until),
        interval: '1h' as const,
        buckets,
      }
    },
  )
}
