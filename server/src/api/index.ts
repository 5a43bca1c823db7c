import type { FastifyInstance } from 'fastify'
import { alertRoutes } from '../alerts/routes.ts'
import { componentRoutes } from '../components/routes.ts'
import type { KeyResolver } from '../ingest/keys.ts'
import type { QuotaGate } from '../ingest/quota.ts'
import type { Store } from '../store/types.ts'
import { triageRoutes } from '../triage/routes.ts'
import { issueRoutes } from './issues.ts'
import { monitorRoutes } from './monitors.ts'
import { openApiDocument } from './openapi.ts'
import { outcomeRoutes } from './outcomes.ts'
import { type PrincipalSource, principalResolver } from './principal.ts'
import { projectRoutes } from './projects.ts'
import { quotaRoutes } from './quotas.ts'
import { releaseRoutes } from './releases.ts'

/** What the management API needs from the app. */
export interface ApiDeps {
  store: Store
  keys: KeyResolver
  quota: QuotaGate
  adminToken: string | undefined
  baseUrl: () => string
  principalSources: PrincipalSource[]
}

/** The management API under `/api/0/`: every route needs a token (or a UI session). */
export async function apiRoutes(app: FastifyInstance, deps: ApiDeps): Promise<void> {
  const resolve = principalResolver(deps.store, deps.adminToken, deps.principalSources)
  app.get('/api/0/openapi.json', async () => openApiDocument())
  app.addHook('onRequest', async (req) => {
    if (req.routeOptions.url === '/api/0/openapi.json') return
    req.principal = await resolve(req)
  })
  await projectRoutes(app, deps)
  await issueRoutes(app, deps)
  await triageRoutes(app)
  await alertRoutes(app)
  await componentRoutes(app)
  await quotaRoutes(app, deps)
  await outcomeRoutes(app, deps)
  await releaseRoutes(app, deps)
  await monitorRoutes(app, deps)
}
