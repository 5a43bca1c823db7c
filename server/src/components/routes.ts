import { z } from 'zod'
import { actorOf, recordAudit } from '../audit/record.ts'
import { onProject } from '../http/route-access.ts'
import { keyJson } from '../http-kit/format.ts'
import type { ApiScope } from '../http-kit/openapi.ts'
import {
  bodyErrorResponses,
  ErrorBody,
  errorResponses,
  KeyJson,
  PathId,
  ProjectParams,
} from '../http-kit/schemas.ts'
import type { Services } from '../services.ts'
import { createComponentKey, revokeProjectKey } from './keys.ts'
import { LABEL_PATTERN, LABEL_RULES, MAX_LABEL_LENGTH } from './labels.ts'

/** Body of minting a component key; the label rules themselves live in `labels.ts`. */
const CreateKey = z
  .object({
    label: z
      .string({ error: 'label is required' })
      .describe(LABEL_RULES)
      // The document states the rules `labelProblem` checks (which words the 400 itself).
      .meta({ pattern: LABEL_PATTERN, minLength: 1, maxLength: MAX_LABEL_LENGTH }),
  })
  .describe('key')

/**
 * Component DSNs: `POST /api/0/projects/{id}/keys/` `{label}` mints one (201, with its DSN);
 * `DELETE /api/0/projects/{id}/keys/{keyId}/` revokes a key (204).
 */
export async function componentRoutes(
  app: ApiScope,
  services: Pick<Services, 'store' | 'keys' | 'baseUrl'>,
): Promise<void> {
  app.post(
    '/api/0/projects/:projectId/keys/',
    {
      config: { access: onProject('project:admin') },
      schema: {
        summary: `Mint a component DSN labelled {label}; label rules: ${LABEL_RULES}`,
        params: ProjectParams,
        body: CreateKey,
        response: {
          201: KeyJson,
          ...bodyErrorResponses,
          409: ErrorBody.describe('The label is in use by an active key'),
        },
      },
    },
    async (req, reply) => {
      const key = await createComponentKey(services, req.params.projectId, req.body.label)
      await recordAudit(services.store, actorOf(req.principal ?? { userId: null }), 'key.create', {
        projectId: key.projectId,
        target: `key:${key.id}`,
        details: { label: key.label },
      })
      return reply.code(201).send(keyJson(key, services.baseUrl()))
    },
  )

  app.delete(
    '/api/0/projects/:projectId/keys/:keyId/',
    {
      config: { access: onProject('project:admin') },
      schema: {
        summary: 'Revoke a DSN key: ingest with it answers 403 (idempotent)',
        params: z.object({ projectId: PathId, keyId: PathId }),
        response: { 204: z.null().describe('Revoked'), ...errorResponses },
      },
    },
    async (req, reply) => {
      const actor = actorOf(req.principal ?? { userId: null })
      await revokeProjectKey(services, req.params.projectId, req.params.keyId, actor)
      return reply.code(204).send(null)
    },
  )
}
