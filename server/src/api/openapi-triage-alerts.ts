import { z } from 'zod'
import { DeliveryQuery } from '../alerts/deliveries.ts'
import { CreateAlertRule } from '../alerts/rules.ts'
import { LABEL_RULES } from '../components/labels.ts'
import { BulkIssueUpdate } from '../triage/change.ts'

const json = (schema: z.ZodType) => ({
  'application/json': { schema: z.toJSONSchema(schema, { io: 'input' }) },
})
const ok = (description: string) => ({ description, content: { 'application/json': {} } })
const errors = {
  '400': { description: 'Invalid input; body `{"detail": "..."}`' },
  '401': { description: 'Missing or wrong token; body `{"detail": "..."}`' },
  '404': { description: 'No such resource' },
}
const DELIVERY =
  '{id, rule: {id, name}, issue_id, event_id, trigger, channel, target, status: pending|sent|failed, attempts, last_error, next_attempt_at, created_at, updated_at, sent_at}'

/** The bulk triage operation on the issue list path (merged into its entry in openapi.ts). */
export const bulkIssueUpdate = {
  summary:
    'Bulk triage: apply {status?, ignore_until?, ignore_duration?, ignore_count?, reviewed?} to `ids`; ids of other projects are skipped; answers the changed issues',
  requestBody: { content: json(BulkIssueUpdate) },
  responses: { '200': ok('[Issue]'), ...errors },
}

/** Minting a component DSN on the keys path (merged into its entry in openapi.ts). */
export const createComponentKey = {
  summary: `Mint a component DSN labelled {label}; label rules: ${LABEL_RULES}`,
  requestBody: {
    content: {
      'application/json': {
        schema: {
          type: 'object',
          properties: { label: { type: 'string', minLength: 1, maxLength: 32 } },
          required: ['label'],
        },
      },
    },
  },
  responses: { '201': ok('{id, label, component, public_key, dsn, revoked}'), ...errors },
}

/** OpenAPI paths of alerts and key revocation (issue 7b), merged into openapi.ts. */
export const triageAlertPaths = {
  '/api/0/projects/{projectId}/keys/{keyId}/': {
    delete: {
      summary: 'Revoke a DSN key: ingest with it answers 403 (idempotent)',
      responses: { '204': { description: 'Revoked' }, ...errors },
    },
  },
  '/api/0/projects/{projectId}/alert-rules/': {
    get: { summary: 'Alert rules of the project', responses: { '200': ok('[Rule]'), ...errors } },
    post: {
      summary:
        'Create an alert rule: any of its conditions (new_issue, regression, frequency {threshold, window_minutes}) sends to its channel (webhook {url, format: json|slack} or email {to})',
      requestBody: { content: json(CreateAlertRule) },
      responses: { '201': ok('Rule'), ...errors },
    },
  },
  '/api/0/projects/{projectId}/alert-rules/{ruleId}/': {
    delete: {
      summary: 'Delete an alert rule; its pending deliveries are cancelled',
      responses: { '204': { description: 'Deleted' }, ...errors },
    },
  },
  '/api/0/projects/{projectId}/alert-deliveries/': {
    get: {
      summary: 'The delivery log, newest first; filters status, issue_id; cursor paging',
      parameters: Object.keys(DeliveryQuery.shape).map((name) => ({
        name,
        in: 'query',
        schema: { type: 'string' },
      })),
      responses: { '200': ok(`[${DELIVERY}]`), ...errors },
    },
  },
}
