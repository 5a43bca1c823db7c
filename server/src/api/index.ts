import type { FastifyInstance } from 'fastify'
import type { KeyResolver } from '../ingest/keys.ts'
import type { Store } from '../store/types.ts'
import { issueRoutes } from './issues.ts'
import { openApiDocument } from './openapi.ts'
import { type PrincipalSource, principalResolver } from './principal.ts'
import { projectRoutes } from './projects.ts'

/** What the management API needs from the app. */
export interface ApiDeps {
  store: Store
  keys: KeyResolver
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
}
