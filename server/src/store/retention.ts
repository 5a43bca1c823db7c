import type { FastifyInstance } from 'fastify'
import { LeasedJob, type LeaseStore } from './leased-job.ts'
import type { PruneResult, RetentionStore } from './retention-store.ts'

const DAY = 86_400_000
/**
 * Rows per delete batch. Small, so a batch holds SQLite's write lock for a few milliseconds
 * and the ingest writer is never stalled behind a long delete (measured 1k rows ≈ 5 ms).
 */
export const RETENTION_BATCH = 500
/** How often the sweeper looks for expired data; data expires by the day, so hourly is enough. */
const SWEEP_INTERVAL_MS = 3_600_000

/**
 * The share of wall time a sweep may hold the database: after a batch that took t ms it rests
 * t × (1 / share − 1) ms. Back-to-back batches cut ingest to 20 % of its rate on SQLite while
 * they ran (scripts/measure-retention.ts, 100k old events); expiry is not urgent, so the
 * sweep yields most of the time to the writer instead.
 */
export const RETENTION_DUTY_CYCLE = 0.1

/**
 * Removes everything older than `days` before `now`, batch after batch until a batch comes back
 * short, resting between batches (see `RETENTION_DUTY_CYCLE`). Returns the totals.
 */
export async function sweepRetention(
  store: RetentionStore,
  days: number,
  now: number,
  opts: { batch?: number; dutyCycle?: number } = {},
): Promise<PruneResult> {
  const batch = opts.batch ?? RETENTION_BATCH
  const duty = Math.min(1, Math.max(0.01, opts.dutyCycle ?? RETENTION_DUTY_CYCLE))
  const cutoff = now - days * DAY
  const total: PruneResult = { events: 0, sessions: 0, outcomes: 0 }
  for (;;) {
    const t0 = performance.now()
    const r = await store.pruneBefore(cutoff, batch)
    total.events += r.events
    total.sessions += r.sessions
    total.outcomes += r.outcomes
    if (r.derived !== undefined) total.derived = (total.derived ?? 0) + r.derived
    if (r.events < batch && r.sessions < batch && r.outcomes < batch && (r.derived ?? 0) < batch)
      return total
    const rest = (performance.now() - t0) * (1 / duty - 1)
    await new Promise<void>((resolve) => setTimeout(resolve, rest))
  }
}

/** Name of the retention sweep's lease row. */
export const RETENTION_LEASE = 'retention'

/**
 * Runs the retention sweep hourly (`RETENTION_DAYS`, 0: off) on the one node holding its lease
 * (leased-job.ts; the first sweep soon after start unless another node swept within the hour),
 * and stops it before the store closes.
 */
export function installRetention(
  app: FastifyInstance,
  store: RetentionStore & LeaseStore,
  days: number,
  onPruned?: (r: PruneResult) => void,
): void {
  if (days <= 0) return
  const job = new LeasedJob(store, {
    name: RETENTION_LEASE,
    intervalMs: SWEEP_INTERVAL_MS,
    run: async (now) => {
      const r = await sweepRetention(store, days, now)
      onPruned?.(r)
      return r
    },
    onError: (err: unknown) => app.log.error({ err }, 'retention sweep failed'),
  })
  app.addHook('onReady', async () => job.start())
  app.addHook('preClose', async () => job.stop())
}
