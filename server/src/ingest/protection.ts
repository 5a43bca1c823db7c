import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.ts'
import { ApiError } from '../errors.ts'
import { AdmissionController, type ByteReservation } from './admission.ts'
import { DiskGuard } from './disk-guard.ts'

/** The app's ingest guards, shared by the envelope, store and OTLP routes and `/readyz`. */
export interface IngestProtection {
  admission: AdmissionController
  disk: DiskGuard
  /** Seconds announced when storage refuses data. */
  retryAfterSeconds: number
}

declare module 'fastify' {
  interface FastifyInstance {
    ingestProtection: IngestProtection
  }
  interface FastifyRequest {
    /** Body bytes this request holds against the global budget (ingest routes only). */
    ingestBudget?: ByteReservation
  }
}

/** How often the disk guard reads free space, ms. */
const DISK_CHECK_MS = 2000

/** The 503 answered while storage cannot take data (disk guard or a failed write). */
export function storageUnavailable(retryAfterSeconds: number, why: string): ApiError {
  return new ApiError('storage_unavailable', `storage unavailable (${why}): retry later`, [], {
    'retry-after': String(retryAfterSeconds),
  })
}

/**
 * Creates the admission controller and the disk guard, decorates the app with them, and caps
 * open connections.
 */
export function installIngestProtection(app: FastifyInstance, config: Config): void {
  const p = config.protection
  const disk = new DiskGuard(config.dataDir, p.diskMinFreeBytes)
  disk.start(DISK_CHECK_MS)
  app.decorate('ingestProtection', {
    admission: new AdmissionController({
      maxInflightBytes: p.maxInflightBytes,
      maxQueuedUnits: p.maxQueuedUnits,
      targetLatencyMs: p.targetLatencyMs,
      retryAfterSeconds: p.shedRetryAfterSeconds,
    }),
    disk,
    retryAfterSeconds: Math.max(p.shedRetryAfterSeconds, 5),
  })
  app.addHook('onClose', async () => disk.stop())
  // Node closes connections past this at accept, before any parsing (net.Server#maxConnections).
  if (p.maxConnections > 0) app.server.maxConnections = p.maxConnections
}

/**
 * Hooks of an ingest scope: each request gets a byte reservation, given back when its answer
 * is sent or the client goes away.
 */
export function budgetHooks(app: FastifyInstance): void {
  app.addHook('onRequest', async (req) => {
    req.ingestBudget = app.ingestProtection.admission.reserveBytes()
  })
  app.addHook('onResponse', async (req) => req.ingestBudget?.release())
  app.addHook('onRequestAbort', async (req) => req.ingestBudget?.release())
}
