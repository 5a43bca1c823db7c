import pg from 'pg'
import { z } from 'zod'
import { backoffDelay } from '../backoff.ts'
import { notifyStored } from '../store/postgres/live.ts'
import type { LiveBus } from './bus.ts'
import { FeedCore, type LiveFeed, type Stored } from './feed.ts'

/** The `LISTEN/NOTIFY` channel of stored-event notices (one per database, all projects). */
export const LIVE_CHANNEL = 'ingest_live_stored'

/** `application_name` of the listening connection: how it shows in `pg_stat_activity`. */
export const LIVE_APPLICATION_NAME = 'ingest-live'

/** Announcements kept while the connection is down; beyond it the oldest are dropped. */
const MAX_PENDING = 10_000
/** Reconnect delays: first try soon, then back off to this ceiling. */
const RECONNECT_MIN_MS = 100
const RECONNECT_MAX_MS = 2_000

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
 * The feed of a node on PostgreSQL: one dedicated connection per node (beside the store's
 * pool) that both `LISTEN`s on {@link LIVE_CHANNEL} and publishes this node's commits with
 * `NOTIFY` after they committed, so a notice reaches every node's streams, this one's
 * included, through the same path and with the same id. The connection reconnects with
 * back-off; after a reconnect the streams are told of a gap and resume from the database.
 * Resolves once the first `LISTEN` is in place.
 */
export async function postgresFeed(bus: LiveBus, url: string, log: FeedLog): Promise<LiveFeed> {
  let client: pg.Client | undefined
  let closed = false
  /** Failed reconnects in a row (the back-off's attempt). */
  let failures = 0
  let unsent: Stored[] = []
  let timer: NodeJS.Timeout | undefined

  const publish = async (batch: Stored[]): Promise<void> => {
    unsent.push(...batch)
    if (unsent.length > MAX_PENDING) unsent = unsent.slice(-MAX_PENDING)
    const c = client
    if (c === undefined || unsent.length === 0) return
    const sending = unsent
    unsent = []
    try {
      await notifyStored(c, LIVE_CHANNEL, sending)
    } catch (err) {
      // Sent again after the reconnect: a repeated notice only refreshes a page once more.
      unsent = [...sending, ...unsent].slice(-MAX_PENDING)
      log.warn({ err }, 'live notices not published; retrying after reconnect')
    }
  }
  const core = new FeedCore(bus, publish, () => true)

  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: url, application_name: LIVE_APPLICATION_NAME })
    const lost = (err?: unknown) => {
      if (client !== c) return
      client = undefined
      c.removeAllListeners('notification')
      void c.end().catch(() => undefined)
      if (closed) return
      log.warn({ err }, 'live listener connection lost; reconnecting')
      schedule()
    }
    c.on('error', lost)
    c.on('end', () => lost())
    c.on('notification', (msg) => {
      if (msg.channel !== LIVE_CHANNEL || msg.payload === undefined) return
      let value: unknown
      try {
        value = JSON.parse(msg.payload)
      } catch {
        return
      }
      const parsed = Payload.safeParse(value)
      if (parsed.success) core.emit(parsed.data)
    })
    try {
      await c.connect()
      await c.query(`LISTEN ${LIVE_CHANNEL}`)
    } catch (err) {
      await c.end().catch(() => undefined)
      throw err
    }
    if (closed) {
      await c.end().catch(() => undefined)
      return
    }
    client = c
    failures = 0
    void publish([])
  }

  const schedule = (): void => {
    if (closed || timer !== undefined) return
    timer = setTimeout(
      () => {
        timer = undefined
        connect().then(
          // Notices sent while no connection listened never reached this node's streams.
          () => core.gap(),
          (err: unknown) => {
            log.warn({ err }, 'live listener reconnect failed')
            failures++
            schedule()
          },
        )
      },
      backoffDelay(failures + 1, RECONNECT_MIN_MS, RECONNECT_MAX_MS),
    )
    timer.unref()
  }

  await connect()
  return {
    subscribe: (s) => core.subscribe(s),
    close: async () => {
      await core.drain()
      closed = true
      if (timer !== undefined) clearTimeout(timer)
      const c = client
      client = undefined
      await c?.end().catch(() => undefined)
    },
  }
}
