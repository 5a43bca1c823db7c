import type { FastifyInstance } from 'fastify'
import { PUBLIC } from '../accounts/access.ts'
import type { GroupCommitter } from '../store/group-commit.ts'

/**
 * `GET /healthz` (the process answers; liveness) and `GET /readyz` (the database takes a write
 * and the disk guard is clear; readiness) for load balancers: unauthenticated, no request body,
 * nothing that scales with data. Readiness runs an empty unit through the group commit (a write
 * transaction without rows), so a locked or read-only database shows up as not ready.
 */
export function healthRoutes(app: FastifyInstance, committer: GroupCommitter): void {
  app.get('/healthz', { config: { access: PUBLIC } }, async (_req, reply) =>
    reply.header('cache-control', 'no-store').send({ status: 'ok' }),
  )
  app.get('/readyz', { config: { access: PUBLIC } }, async (_req, reply) => {
    reply.header('cache-control', 'no-store')
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
