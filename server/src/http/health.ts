import type { FastifyInstance } from 'fastify'
import type { GroupCommitter } from '../store/group-commit.ts'
import { PUBLIC } from './route-access.ts'

/** Whether this process still wants traffic; `main.ts` clears it on SIGTERM (http/shutdown.ts). */
export interface Readiness {
  draining: boolean
}

declare module 'fastify' {
  interface FastifyInstance {
    readiness: Readiness
  }
}

/**
 * `GET /healthz` (the process answers; liveness) and `GET /readyz` (the database takes a write
 * and the disk guard is clear; readiness) for load balancers: unauthenticated, no request body,
 * nothing that scales with data. Readiness runs an empty unit through the group commit (a write
 * transaction without rows), so a locked or read-only database shows up as not ready. A
 * draining process (SIGTERM received) is unready before anything else, so the load balancer
 * stops routing to it while it still serves; its responses then also close their connection
 * (`connection: close`), moving keep-alive clients to another node.
 */
export function healthRoutes(app: FastifyInstance, committer: GroupCommitter): void {
  const readiness: Readiness = { draining: false }
  app.decorate('readiness', readiness)
  // A callback hook: every answer runs it, and an async one costs a promise each.
  app.addHook('onSend', (_req, reply, payload, next) => {
    if (readiness.draining) reply.header('connection', 'close')
    next(null, payload)
  })
  app.get('/healthz', { config: { access: PUBLIC } }, async (_req, reply) =>
    reply.header('cache-control', 'no-store').send({ status: 'ok' }),
  )
  app.get('/readyz', { config: { access: PUBLIC } }, async (_req, reply) => {
    reply.header('cache-control', 'no-store')
    if (readiness.draining) {
      return reply.code(503).send({ status: 'draining', detail: 'shutting down' })
    }
    const disk = app.ingestProtection.disk
    if (await disk.check()) {
      return reply.code(503).send({ status: 'unavailable', detail: 'low disk space' })
    }
    try {
      await committer.write({ events: [], outcomes: [] })
    } catch (err) {
      app.log.error({ err }, 'readiness probe failed')
      return reply.code(503).send({ status: 'unavailable', detail: 'database not writable' })
    }
    return reply.send({ status: 'ok' })
  })
}
