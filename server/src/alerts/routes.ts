import { z } from 'zod'
import { actorOf, recordAudit } from '../audit/record.ts'
import { onProject } from '../http/route-access.ts'
import type { ApiScope } from '../http-kit/openapi.ts'
import {
  AlertRuleJson,
  bodyErrorResponses,
  DeliveryJson,
  errorResponses,
  PathId,
  ProjectParams,
} from '../http-kit/schemas.ts'
import type { Services } from '../services.ts'
import { DeliveryQuery, deliveryJson, listAlertDeliveries } from './deliveries.ts'
import {
  CreateAlertRule,
  createAlertRule,
  deleteAlertRule,
  listAlertRules,
  ruleJson,
} from './rules.ts'

/**
 * Alert rule and delivery-log routes: `GET/POST /api/0/projects/{id}/alert-rules/`,
 * `DELETE /api/0/projects/{id}/alert-rules/{ruleId}/`, `GET /api/0/projects/{id}/alert-deliveries/`.
 */
export async function alertRoutes(
  app: ApiScope,
  services: Pick<Services, 'store' | 'config'>,
): Promise<void> {
  const { store, config } = services

  app.get(
    '/api/0/projects/:projectId/alert-rules/',
    {
      config: { access: onProject('project:read') },
      schema: {
        summary: 'Alert rules of the project',
        params: ProjectParams,
        response: { 200: z.array(AlertRuleJson), ...errorResponses },
      },
    },
    async (req) => (await listAlertRules(store, req.params.projectId)).map(ruleJson),
  )

  app.post(
    '/api/0/projects/:projectId/alert-rules/',
    {
      config: { access: onProject('project:admin') },
      schema: {
        summary:
          'Create an alert rule: any of its conditions (new_issue, regression, frequency {threshold, window_minutes}) sends to its channel (webhook {url, format: json|slack} or email {to})',
        params: ProjectParams,
        body: CreateAlertRule.describe('alert rule'),
        response: { 201: AlertRuleJson, ...bodyErrorResponses },
      },
    },
    async (req, reply) => {
      const rule = await createAlertRule({ store, config }, req.params.projectId, req.body)
      await recordAudit(store, actorOf(req.principal ?? { userId: null }), 'alert_rule.create', {
        projectId: rule.projectId,
        target: `alert_rule:${rule.id}`,
        details: { name: rule.name },
      })
      return reply.code(201).send(ruleJson(rule))
    },
  )

  app.delete(
    '/api/0/projects/:projectId/alert-rules/:ruleId/',
    {
      config: { access: onProject('project:admin') },
      schema: {
        summary: 'Delete an alert rule; its pending deliveries are cancelled',
        params: z.object({ projectId: PathId, ruleId: PathId }),
        response: { 204: z.null().describe('Deleted'), ...errorResponses },
      },
    },
    async (req, reply) => {
      await deleteAlertRule(store, req.params.projectId, req.params.ruleId)
      await recordAudit(store, actorOf(req.principal ?? { userId: null }), 'alert_rule.delete', {
        projectId: req.params.projectId,
        target: `alert_rule:${req.params.ruleId}`,
      })
      return reply.code(204).send(null)
    },
  )

  app.get(
    '/api/0/projects/:projectId/alert-deliveries/',
    {
      config: { access: onProject('project:read') },
      schema: {
        summary: 'The delivery log, newest first; filters status, issue_id; cursor paging',
        params: ProjectParams,
        querystring: DeliveryQuery.describe('query'),
        response: { 200: z.array(DeliveryJson), ...errorResponses },
      },
    },
    async (req, reply) => {
      const page = await listAlertDeliveries(store, req.params.projectId, req.query)
      if (page.next !== undefined) reply.header('x-next-cursor', page.next)
      return page.deliveries.map(deliveryJson)
    },
  )
}
