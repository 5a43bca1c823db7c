import type { FastifyInstance } from 'fastify'
import type { ArtifactStore } from '../store/artifact-types.ts'
import { LeasedJob, type LeaseStore } from '../store/leased-job.ts'

const HOUR = 3_600_000
const DAY = 24 * HOUR
/** Bundles removed per run at most (each takes its files and links with it). */
const BUNDLE_BATCH = 100

/** Name of the artifact maintenance job's lease row. */
export const ARTIFACT_LEASE = 'artifact-maintenance'

/**
 * One run: chunks not assembled within an hour go; with retention on, so do bundles neither
 * uploaded nor used by an event for `retentionDays` (an event stored since then that used one
 * has touched it, so bundles are kept while the events that need them are).
 */
export function pruneArtifacts(store: ArtifactStore, retentionDays: number, now: number) {
  return store.pruneArtifacts(
    now - HOUR,
    retentionDays > 0 ? now - retentionDays * DAY : undefined,
    BUNDLE_BATCH,
  )
}

/**
 * Runs {@link pruneArtifacts} every 10 minutes on the one node holding its lease
 * (store/leased-job.ts), and stops it before the store closes.
 */
export function installArtifactMaintenance(
  app: FastifyInstance,
  store: ArtifactStore & LeaseStore,
  retentionDays: number,
): void {
  const job = new LeasedJob(store, {
    name: ARTIFACT_LEASE,
    intervalMs: 10 * 60_000,
    run: (now) => pruneArtifacts(store, retentionDays, now),
    onError: (err: unknown) => app.log.error({ err }, 'artifact maintenance failed'),
  })
  app.addHook('onReady', async () => job.start())
  app.addHook('preClose', async () => job.stop())
}
