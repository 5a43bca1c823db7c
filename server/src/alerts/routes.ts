import type { FastifyInstance } from 'fastify'
import { pathId } from '../api/validate.ts'
import { deliveryJson, listAlertDeliveries } from './deliveries.ts'
import { createAlertRule, deleteAlertRule, listAlertRules, ruleJson } from './rules.ts'

/**
 * Alert rule and delivery-log routes: `GET/POST /api/0/projects/{id}/alert-rules/`,
 * `DELETE /api/0/projects/{id}/alert-rules/{ruleId}/`, `GET /api/0/projects/{id}/alert-deliveries/`.
 */
export async function alertRoutes(app: FastifyInstance): Promise<void> {
  const { store, config } = app.services

  app.get('/api/0/projects/:projectId/alert-rules/', async (req) =>
    (await listAlertRules(store, pathId(req.params, 'projectId'))).map(ruleJson),
  )

  app.post('/api/0/projects/:projectId/alert-rules/', async (req, reply) => {
    const rule = await createAlertRule({ store, config }, pathId(req.params, 'projectId'), req.body)
    return reply.code(201).send(ruleJson(rule))
  })

  app.delete('/api/0/projects/:projectId/alert-rules/:ruleId/', async (req, reply) => {
    await deleteAlertRule(store, pathId(req.params, 'projectId'), pathId(req.params, 'ruleId'))
    return reply.code(204).send()
  })

  app.get('/api/0/projects/:projectId/alert-deliveries/', async (req, reply) => {
    const projectId = pathId(req.params, 'projectId')
    const page = await listAlertDeliveries(store, projectId, req.query)
    if (page.next !== undefined) reply.header('x-next-cursor', page.next)
    return page.deliveries.map(deliveryJson)
  })
}
