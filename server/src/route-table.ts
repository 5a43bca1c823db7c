import type { FastifyInstance } from 'fastify'
import type { Access } from './http/route-access.ts'

/** One registered route: method and URL as declared (`:param` placeholders), and its access. */
export interface RouteEntry {
  method: string
  url: string
  /** The route's declared access rule (`accounts/access.ts`); undefined: none declared. */
  access: Access | undefined
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered on the app, in registration order (see {@link recordRoutes}). */
    routeTable: readonly RouteEntry[]
  }
}

/**
 * Records every route the app registers (Fastify has no public route list), so a test can
 * check that each `/api/0` route is in the OpenAPI document, as Fastify's own tests keep its
 * docs in step with its code. Call before any route is registered: `onRoute` hooks on the root
 * see the routes of every scope registered after them.
 */
export function recordRoutes(app: FastifyInstance): void {
  const table: RouteEntry[] = []
  app.decorate('routeTable', table)
  app.addHook('onRoute', (route) => {
    const access = route.config?.access
    for (const method of [route.method].flat()) table.push({ method, url: route.url, access })
  })
}
