import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import { ApiError } from '../errors.ts'
import { installEarlyShed } from '../http/early-shed.ts'
import { AdmissionController, type ByteReservation, shedHeaders } from './admission.ts'
import { LoopLag } from './admission-lag.ts'
import { DiskGuard } from './disk-guard.ts'
import { InflightLimit } from './inflight-limit.ts'

/** The app's ingest guards, shared by the envelope, store and OTLP routes and `/readyz`. */
export interface IngestProtection {
  admission: AdmissionController
  /** Ingest requests in flight in this process, from their parsed headers to their answer. */
  inflight: InflightLimit
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
    /** Gives the request's place in the ingest queue back (ingest routes only). */
    ingestLeave?: () => void
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

/** Refuses new data with the 503 while the disk guard says free space is below its floor. */
export function refuseWhileDiskLow(protection: IngestProtection): void {
  if (protection.disk.blocked()) {
    throw storageUnavailable(protection.retryAfterSeconds, 'low disk space')
  }
}

/**
 * Creates the admission controller and the disk guard, decorates the app with them, and caps
 * open connections.
 */
export function installIngestProtection(app: FastifyInstance, config: Config): void {
  const p = config.protection
  const disk = new DiskGuard(config.dataDir, p.diskMinFreeBytes)
  disk.start(DISK_CHECK_MS)
  // The main thread may fall behind by a third of the latency target before requests are shed
  // in front of it (docs/ingest-protection.md).
  const lag = new LoopLag(p.targetLatencyMs / 3)
  lag.start()
  const admission = new AdmissionController(
    {
      maxInflightBytes: p.maxInflightBytes,
      maxQueuedUnits: p.maxQueuedUnits,
      targetLatencyMs: p.targetLatencyMs,
      retryAfterSeconds: p.shedRetryAfterSeconds,
    },
    lag,
  )
  // Requests in flight aim at two thirds of the latency target (100 ms): a third (50 ms) is
  // below what an accepted request takes while hundreds of refusals share each loop turn, and
  // the limit sank to its floor (docs/ingest-protection.md).
  const inflight = new InflightLimit(p.maxInflightRequests, (p.targetLatencyMs * 2) / 3)
  app.decorate('ingestProtection', {
    admission,
    inflight,
    disk,
    retryAfterSeconds: Math.max(p.shedRetryAfterSeconds, 5),
  })
  const retryAfterSeconds = p.shedRetryAfterSeconds
  installEarlyShed(
    app.server,
    admission,
    { retryAfterSeconds, headers: shedHeaders(retryAfterSeconds) },
    inflight,
  )
  app.addHook('onClose', async () => {
    disk.stop()
    lag.stop()
  })
  // Node closes connections past this at accept, before any parsing (net.Server#maxConnections).
  if (p.maxConnections > 0) app.server.maxConnections = p.maxConnections
}

/**
 * Hooks of an ingest scope: each request takes a place in the bounded ingest queue when it
 * arrives (or is shed with a 429 before anything is read) and a byte reservation; both are
 * given back when its answer is sent or the client goes away.
 */
export function budgetHooks(app: FastifyInstance): void {
  // Callback hooks, not async ones: every ingest request runs them, and an async hook costs a
  // promise and a turn of the microtask queue each.
  const release = (req: FastifyRequest): void => {
    req.ingestBudget?.release()
    req.ingestLeave?.()
  }
  app.addHook('onRequest', (req, reply, next) => {
    if (req.method !== 'POST') {
      next()
      return
    }
    try {
      req.ingestLeave = app.ingestProtection.admission.enter()
      req.ingestBudget = app.ingestProtection.admission.reserveBytes()
    } catch (err) {
      next(err instanceof Error ? err : new Error(String(err)))
      return
    }
    // 'close' comes in every case, also when the client hung up before the answer was written
    // (then Fastify runs no onResponse hook); both paths are idempotent.
    reply.raw.once('close', () => release(req))
    next()
  })
  app.addHook('onResponse', (req, _reply, next) => {
    release(req)
    next()
  })
  app.addHook('onRequestAbort', (req, next) => {
    release(req)
    next()
  })
}
