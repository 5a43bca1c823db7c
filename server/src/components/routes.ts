import type { FastifyInstance } from 'fastify'
import { keyJson } from '../api/format.ts'
import { pathId } from '../api/validate.ts'
import { ApiError } from '../errors.ts'
import { createComponentKey, revokeProjectKey } from './keys.ts'

/**
 * Component DSNs: `POST /api/0/projects/{id}/keys/` `{label}` mints one (201, with its DSN);
 * `DELETE /api/0/projects/{id}/keys/{keyId}/` revokes a key (204).
 */
export async function componentRoutes(app: FastifyInstance): Promise<void> {
  const services = app.services
  app.post('/api/0/projects/:projectId/keys/', async (req, reply) => {
    const projectId = pathId(req.params, 'projectId')
    const body = req.body
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new ApiError('bad_request', 'send a JSON object {"label": "..."}')
    const key = await createComponentKey(services, projectId, (body as { label?: unknown }).label)
    return reply.code(201).send(keyJson(key, services.baseUrl()))
  })

  app.delete('/api/0/projects/:projectId/keys/:keyId/', async (req, reply) => {
    const projectId = pathId(req.params, 'projectId')
    await revokeProjectKey(services, projectId, pathId(req.params, 'keyId'))
    return reply.code(204).send()
  })
}
