import type { FastifyInstance } from 'fastify'

/** The paths of the route table as patterns, with the methods each is routed for. */
interface PathMethods {
  pattern: RegExp
  methods: Set<string>
}

/** `/api/0/projects/:projectId/` → a pattern matching a concrete path with or without the slash. */
function patternOf(url: string): RegExp {
  const parts = url
    .replace(/\/+$/, '')
    .split('/')
    .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
  return new RegExp(`^${parts.join('/')}/?$`)
}

function pathMethods(app: FastifyInstance): PathMethods[] {
  const byUrl = new Map<string, Set<string>>()
  for (const r of app.routeTable) {
    if (r.url.includes('*')) continue
    const key = r.url.replace(/\/+$/, '')
    const methods = byUrl.get(key) ?? new Set<string>()
    methods.add(r.method)
    byUrl.set(key, methods)
  }
  return [...byUrl].map(([url, methods]) => ({ pattern: patternOf(url), methods }))
}

/**
 * Answers a request no route takes before its body is read (Fastify would first refuse a
 * `QUERY` without a Content-Type with a 400): 405 with `Allow` when the path is routed for other
 * methods (RFC 9110; every path also answers the CORS preflight), else the app's 404. Costs a
 * routed request nothing: only requests bound for the not-found handler are looked at.
 */
export function installMethodNotAllowed(app: FastifyInstance): void {
  let table: PathMethods[] | undefined
  // A callback hook (every request runs it; an async one costs a promise each): a request it
  // answers does not go on, so `next` is only called for the others.
  app.addHook('onRequest', (req, reply, next) => {
    if (!req.is404) {
      next()
      return
    }
    table ??= pathMethods(app)
    const path = (req.url.split('?')[0] ?? '').replace(/\/{2,}/g, '/')
    const allowed = new Set<string>()
    for (const entry of table) {
      if (entry.pattern.test(path)) for (const m of entry.methods) allowed.add(m)
    }
    if (allowed.size === 0) {
      void reply.code(404).send({ detail: `no route for ${req.method} ${path}` })
      return
    }
    allowed.add('OPTIONS')
    void reply
      .code(405)
      .header('allow', [...allowed].sort().join(', '))
      .send({
        detail: `${req.method} is not allowed here; allowed: ${[...allowed].sort().join(', ')}`,
      })
  })
}
