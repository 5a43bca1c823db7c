import type { ServerResponse } from 'node:http'
import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { onQueryProject } from '../http/route-access.ts'
import { parseInput } from '../http-kit/validate.ts'
import type { LiveNotice } from '../live/feed.ts'
import { openLiveFeed } from '../live/open-feed.ts'
import type { UiDeps } from './context.ts'

const LiveQuery = z.object({ project: z.coerce.number().int().positive() })

/** Comment lines keep idle proxies from closing the stream. */
const HEARTBEAT_MS = 15_000

/**
 * Notices replayed to a resuming stream, at most: the page refetches its list on any notice,
 * so more would tell it nothing new (Relay/Sentry keep no replay at all).
 */
export const REPLAY_LIMIT = 100

/** `Last-Event-ID` as a row id, or undefined when absent or not one of ours. */
function lastEventId(header: string | string[] | undefined): number | undefined {
  const v = Array.isArray(header) ? header[0] : header
  if (v === undefined || !/^\d{1,15}$/.test(v.trim())) return undefined
  return Number(v.trim())
}

/** One open stream: its project, and notices held back while its replay is read. */
interface Stream {
  projectId: number
  held: LiveNotice[] | undefined
  /**
   * Ids the replay wrote (at most {@link REPLAY_LIMIT}): on PostgreSQL an event's notice can
   * arrive after the replay read it, and is then not sent twice.
   */
  sent: Set<number>
}

const frame = (n: LiveNotice, replayed: boolean): string => {
  const data = JSON.stringify({
    issueId: n.issueId,
    eventId: n.eventId,
    issueCreated: n.issueCreated,
    regressed: n.regressed,
    ...(replayed ? { replayed: true } : {}),
  })
  return `id: ${n.id}\nevent: stored\ndata: ${data}\n\n`
}

/**
 * `GET /ui/live?project=ID`: a Server-Sent Events stream of `stored` events for one project,
 * fed by the live feed (live/feed.ts), which on PostgreSQL carries every node's commits. Each
 * message's `id:` is the event's row id; a browser reconnecting with `Last-Event-ID` first
 * gets the newest {@link REPLAY_LIMIT} events stored after it, read from the database, so a
 * stream resumes on any node without losing a notice. One feed subscriber fans out to every
 * open stream.
 */
export async function liveRoutes(app: FastifyInstance, deps: UiDeps): Promise<void> {
  const { store } = deps.services
  const streams = new Map<ServerResponse, Stream>()
  const endAll = () => {
    for (const res of streams.keys()) res.end()
    streams.clear()
  }
  const feed = await openLiveFeed(deps.services, app.log)
  const unsubscribe = feed.subscribe({
    notice: (n) => {
      for (const [res, s] of streams) {
        if (s.projectId !== n.projectId) continue
        if (s.held !== undefined) s.held.push(n)
        else if (!s.sent.has(n.id)) res.write(frame(n, false))
      }
    },
    // The browser reconnects (`retry:`) with its Last-Event-ID and replays what it missed.
    gap: endAll,
    watching: () => streams.size > 0,
  })
  const heartbeat = setInterval(() => {
    for (const res of streams.keys()) res.write(': ping\n\n')
  }, HEARTBEAT_MS)
  heartbeat.unref()

  // Open streams would keep `close()` waiting forever: end them first.
  app.addHook('preClose', async () => {
    clearInterval(heartbeat)
    unsubscribe()
    endAll()
  })
  app.addHook('onClose', async () => {
    await feed.close()
  })

  app.get(
    '/ui/live',
    { config: { access: onQueryProject('project:read') } },
    async (req, reply) => {
      const { project } = parseInput(LiveQuery, req.query, 'query')
      if ((await store.getProject(project)) === undefined) {
        return reply.code(404).type('text/plain').send('no such project')
      }
      const after = lastEventId(req.headers['last-event-id'])
      reply.hijack()
      const res = reply.raw
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      })
      res.write('retry: 2000\n: connected\n\n')
      const stream: Stream = {
        projectId: project,
        held: after === undefined ? undefined : [],
        sent: new Set(),
      }
      streams.set(res, stream)
      const drop = () => streams.delete(res)
      req.raw.on('close', drop)
      res.on('error', drop)
      if (after === undefined) return
      try {
        const missed = await store.liveEventsAfter(project, after, REPLAY_LIMIT)
        for (const r of missed) {
          res.write(
            frame({ ...r, projectId: project, issueCreated: false, regressed: false }, true),
          )
          stream.sent.add(r.id)
        }
      } catch (err) {
        req.log.warn({ err }, 'live replay failed')
      }
      const held = stream.held ?? []
      stream.held = undefined
      for (const n of held) if (!stream.sent.has(n.id)) res.write(frame(n, false))
    },
  )
}
