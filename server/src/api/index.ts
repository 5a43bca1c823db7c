import type { FastifyInstance } from 'fastify'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import { userRoutes } from '../accounts/routes.ts'
import { teamRoutes } from '../accounts/team-routes.ts'
import { alertRoutes } from '../alerts/routes.ts'
import { releaseFileRoutes } from '../artifact-bundles/release-file-routes.ts'
import { artifactRoutes } from '../artifact-bundles/routes.ts'
import { auditRoutes } from '../audit/routes.ts'
import { componentRoutes } from '../components/routes.ts'
import { type ApiScope, OPENAPI_PATH, schemaFirst } from '../http-kit/openapi.ts'
import { type PrincipalSource, principalResolver } from '../http-kit/principal.ts'
import type { Services } from '../services.ts'
import { triageRoutes } from '../triage/routes.ts'
import { eventJsonRoutes } from './event-json.ts'
import { issueRoutes } from './issues.ts'
import { monitorRoutes } from './monitors.ts'
import { orgReleaseRoutes } from './org-releases.ts'
import { outcomeRoutes } from './outcomes.ts'
import { privacyRoutes } from './privacy.ts'
import { projectRoutes } from './projects.ts'
import { quotaRoutes } from './quotas.ts'
import { REFERENCE_PATH, referenceRoute } from './reference-page.ts'
import { releaseRoutes } from './releases.ts'

/**
 * The management API under `/api/0/`: every route but the OpenAPI document needs a token (or a
 * UI session), and every route declares its schemas so the document is generated from them.
 * The same document is rendered for people at `/api/reference/`.
 * `principalSources` are the other ways a caller may authenticate besides a bearer token (the
 * UI's session cookie), given by the composition root.
 */
export async function apiRoutes(
  scope: FastifyInstance,
  services: Services,
  principalSources: readonly PrincipalSource[],
): Promise<void> {
  const resolve = principalResolver(services.store, services.config.adminToken, principalSources)
  await schemaFirst(scope)
  const app: ApiScope = scope.withTypeProvider<ZodTypeProvider>()
  referenceRoute(scope, () => scope.swagger())
  app.addHook('onRequest', async (req) => {
    const url = req.routeOptions.url
    if (url === OPENAPI_PATH || url === REFERENCE_PATH) return
    req.principal = await resolve(req)
  })
  await projectRoutes(app, services)
  await issueRoutes(app, services)
  await eventJsonRoutes(app, services)
  await triageRoutes(app, services)
  await alertRoutes(app, services)
  await componentRoutes(app, services)
  await quotaRoutes(app, services)
  await privacyRoutes(app, services)
  await outcomeRoutes(app, services)
  await releaseRoutes(app, services)
  await monitorRoutes(app, services)
  await userRoutes(app, services)
  await auditRoutes(app, services)
  await teamRoutes(app, services)
  await artifactRoutes(app, { ...services, publicUrl: services.config.publicUrl })
  await orgReleaseRoutes(app, services)
  await releaseFileRoutes(app, services)
}
