import type { FastifyInstance } from 'fastify'
import { LeasedJob, type LeaseStore } from './leased-job.ts'
import type { SearchBackfillStore } from './search-types.ts'

/** Name of the search backfill's lease row. */
export const SEARCH_BACKFILL_LEASE = 'search-backfill'
/**
 * Events indexed per transaction: a write lock about as long as a group commit's (≈ 30 ms for
 * 100 events measured on SQLite at 1 M events, a loaded machine; docs/search.md).
 */
export const BACKFILL_BATCH = 100
/** Batches per run: at most 10,000 events a run. */
export const BACKFILL_BATCHES_PER_RUN = 100
/** Time between runs: events stored before the search are indexed at 10,000 a minute. */
export const BACKFILL_INTERVAL_MS = 60_000

/**
 * One run of the backfill: batches until none is left or the run's budget is spent.
 * Resolves with the events indexed.
 */
export async function runSearchBackfill(
  store: SearchBackfillStore,
  batches = BACKFILL_BATCHES_PER_RUN,
  batch = BACKFILL_BATCH,
): Promise<number> {
  let total = 0
  for (let i = 0; i < batches; i++) {
    const n = await store.indexUnindexedEvents(batch)
    total += n
    if (n < batch) break
  }
  return total
}

/**
 * Indexes the events stored before the search indexes existed (docs/search.md) on the one
 * node holding the job's lease (leased-job.ts), a bounded run a minute, and stops it before
 * the store closes. Once every event is indexed a run is one empty index lookup.
 */
export function installSearchBackfill(
  app: FastifyInstance,
  store: SearchBackfillStore & LeaseStore,
): void {
  const job = new LeasedJob(store, {
    name: SEARCH_BACKFILL_LEASE,
    intervalMs: BACKFILL_INTERVAL_MS,
    run: async () => {
      const n = await runSearchBackfill(store)
      if (n > 0) app.log.info({ events: n }, 'search backfill indexed older events')
      return n
    },
    onError: (err: unknown) => app.log.error({ err }, 'search backfill failed'),
  })
  app.addHook('onReady', async () => job.start())
  app.addHook('preClose', async () => job.stop())
}
