import type { ServerResponse } from 'node:http'
import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { onQueryProject } from '../accounts/access.ts'
import { parseInput } from '../api/validate.ts'
import type { LiveEvents } from '../live/bus.ts'
import type { UiDeps } from './context.ts'

const LiveQuery = z.object({ project: z.coerce.number().int().positive() })

/** Comment lines keep idle proxies from closing the stream. */
const HEARTBEAT_MS = 15_000

type Stored = LiveEvents['event.stored'][0]

/**
 * `GET /ui/live?project=ID`: a Server-Sent Events stream of `stored` events for one project,
 * fed by the bus's `event.stored`. One bus listener fans out to every open stream, so the
 * number of browsers does not grow the emitter's listener list.
 */
export async function liveRoutes(app: FastifyInstance, deps: UiDeps): Promise<void> {
  const { bus, store } = deps.services
  const streams = new Map<ServerResponse, number>()
  let seq = 0
  const onStored = (e: Stored) => {
    // Nothing to do on the ingest path while no page is watching.
    if (streams.size === 0) return
    const data = JSON.stringify({
      issueId: e.issueId,
      eventId: e.eventId,
      issueCreated: e.issueCreated,
      regressed: e.regressed,
    })
    seq++
    for (const [res, projectId] of streams) {
      if (projectId === e.projectId) res.write(`id: ${seq}\nevent: stored\ndata: ${data}\n\n`)
    }
  }
  bus.on('event.stored', onStored)
  const heartbeat = setInterval(() => {
    for (const res of streams.keys()) res.write(': ping\n\n')
  }, HEARTBEAT_MS)
  heartbeat.unref()

  // Open streams would keep `close()` waiting forever: end them first.
  app.addHook('preClose', async () => {
    clearInterval(heartbeat)
    bus.off('event.stored', onStored)
    for (const res of streams.keys()) res.end()
    streams.clear()
  })

  app.get(
    '/ui/live',
    { config: { access: onQueryProject('project:read') } },
    async (req, reply) => {
      const { project } = parseInput(LiveQuery, req.query, 'query')
      if ((await store.getProject(project)) === undefined) {
        return reply.code(404).type('text/plain').send('no such project')
      }
      reply.hijack()
      const res = reply.raw
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      })
      res.write('retry: 2000\n: connected\n\n')
      streams.set(res, project)
      const drop = () => streams.delete(res)
      req.raw.on('close', drop)
      res.on('error', drop)
    },
  )
}
