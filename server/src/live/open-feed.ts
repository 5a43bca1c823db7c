import type { Store } from '../store/types.ts'
import type { LiveBus } from './bus.ts'
import type { LiveFeed } from './feed.ts'
import { localFeed } from './local-feed.ts'
import { type FeedLog, postgresFeed } from './postgres-feed.ts'

/**
 * The one place the live feed's kind is chosen, like the store's: nodes on one PostgreSQL
 * share notices over `LISTEN/NOTIFY` (the store's one listening connection); a SQLite server is a single node and stays in-process.
 */
export function openLiveFeed(
  deps: { store: Store; bus: LiveBus },
  log: FeedLog,
): Promise<LiveFeed> {
  const { store, bus } = deps
  if (store.notices !== undefined) return postgresFeed(bus, store.notices, log)
  return Promise.resolve(
    localFeed(bus, store, (err) => log.warn({ err }, 'live notice lookup failed')),
  )
}
