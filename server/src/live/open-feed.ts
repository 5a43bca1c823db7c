import type { Config } from '../config.ts'
import type { Store } from '../store/types.ts'
import type { LiveBus } from './bus.ts'
import type { LiveFeed } from './feed.ts'
import { localFeed } from './local-feed.ts'
import { type FeedLog, postgresFeed } from './postgres-feed.ts'

/**
 * The one place the live feed's kind is chosen, like the store's: nodes on one PostgreSQL
 * share notices over `LISTEN/NOTIFY`; a SQLite server is a single node and stays in-process.
 */
export function openLiveFeed(
  deps: { config: Config; store: Store; bus: LiveBus },
  log: FeedLog,
): Promise<LiveFeed> {
  const { config, store, bus } = deps
  if (store.dialect === 'postgres' && config.databaseUrl !== undefined) {
    return postgresFeed(bus, config.databaseUrl, log)
  }
  return Promise.resolve(
    localFeed(bus, store, (err) => log.warn({ err }, 'live notice lookup failed')),
  )
}
