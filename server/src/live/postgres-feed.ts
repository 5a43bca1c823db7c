import { z } from 'zod'
import type { NoticeChannel } from '../store/notice-channel.ts'
import { notifyStored } from '../store/postgres/live.ts'
import type { LiveBus } from './bus.ts'
import { FeedCore, type LiveFeed, type Stored } from './feed.ts'

/** The `LISTEN/NOTIFY` channel of stored-event notices (one per database, all projects). */
export const LIVE_CHANNEL = 'ingest_live_stored'

/** Announcements kept while the connection is down; beyond it the oldest are dropped. */
const MAX_PENDING = 10_000

// The channel is ours, but any role with access can NOTIFY on it: payloads are checked.
const Payload = z.object({
  id: z.number().int().positive(),
  projectId: z.number().int().positive(),
  issueId: z.number().int().positive(),
  eventId: z.string().max(64),
  issueCreated: z.boolean(),
  regressed: z.boolean(),
})

/** What the feed logs: a reconnect is a warning, never an error of the request path. */
export interface FeedLog {
  warn(obj: object, msg: string): void
}

/**
 * The feed of a node on PostgreSQL: it listens on {@link LIVE_CHANNEL} through the node's one
 * listening connection (store/postgres/listener.ts) and publishes this node's commits with
 * `NOTIFY` on that same connection after they committed, so a notice reaches every node's
 * streams, this one's included, through the same path and with the same id. While the
 * connection is down, notices wait (the newest {@link MAX_PENDING}); after it is back the
 * streams are told of a gap and resume from the database. Resolves once the channel is
 * listened to.
 */
export async function postgresFeed(
  bus: LiveBus,
  notices: NoticeChannel,
  log: FeedLog,
): Promise<LiveFeed> {
  let unsent: Stored[] = []

  const publish = async (batch: Stored[]): Promise<void> => {
    unsent.push(...batch)
    if (unsent.length > MAX_PENDING) unsent = unsent.slice(-MAX_PENDING)
    if (!notices.connected() || unsent.length === 0) return
    const sending = unsent
    unsent = []
    try {
      await notifyStored(notices, LIVE_CHANNEL, sending)
    } catch (err) {
      // Sent again after the reconnect: a repeated notice only refreshes a page once more.
      unsent = [...sending, ...unsent].slice(-MAX_PENDING)
      log.warn({ err }, 'live notices not published; retrying after reconnect')
    }
  }
  const core = new FeedCore(bus, publish, () => true)

  const unlisten = await notices.listen(LIVE_CHANNEL, {
    notice: (payload) => {
      // Every node gets every node's notices: one with no stream open leaves them unread
      // (a stream opened later starts from then, or replays from the database).
      if (payload === undefined || !core.watched()) return
      let value: unknown
      try {
        value = JSON.parse(payload)
      } catch {
        return
      }
      // An array of notices (store/postgres/live.ts); a single one from an older node.
      for (const one of Array.isArray(value) ? value : [value]) {
        const parsed = Payload.safeParse(one)
        if (parsed.success) core.emit(parsed.data)
      }
    },
    reconnected: () => {
      // Notices sent while no connection listened never reached this node's streams.
      core.gap()
      void publish([])
    },
  })
  return {
    subscribe: (s) => core.subscribe(s),
    close: async () => {
      await core.drain()
      unlisten()
    },
  }
}
