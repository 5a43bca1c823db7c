import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify'
import { LRUCache } from 'lru-cache'
import { ApiError } from '../errors.ts'
import type { ChangeFeed } from '../store/change-feed.ts'
import type { GroupCommitter } from '../store/group-commit.ts'
import type { OutcomeDelta, ProjectStore } from '../store/types.ts'
import { credentialsFromDsn, credentialsFromRequest } from './auth.ts'
import { parseEnvelope, parseEnvelopeHeader } from './envelope.ts'
import { categoryOf } from './items/index.ts'
import type { KeyResolver } from './keys.ts'

/** What the rejection counter needs from the app. */
export interface RejectionDeps {
  store: ProjectStore & { changes: ChangeFeed }
  keys: KeyResolver
  committer: GroupCommitter
}

/** The outcome reason of a failed ingest request (catalogue reason, else a generic one). */
export function rejectionReason(err: FastifyError | ApiError): string {
  if (err instanceof ApiError) return err.reason ?? 'invalid_request'
  const status = typeof err.statusCode === 'number' ? err.statusCode : 500
  return status >= 500 ? 'internal_error' : 'invalid_request'
}

/** Items of a rejected request by category: each item of a readable envelope, else one. */
export function rejectedItems(body: Buffer | undefined, isStore: boolean): Map<string, number> {
  const counts = new Map<string, number>()
  if (body !== undefined && body.length > 0) {
    try {
      for (const item of parseEnvelope(body).items) {
        const category = categoryOf(item.header.type)
        counts.set(category, (counts.get(category) ?? 0) + 1)
      }
      if (counts.size > 0) return counts
    } catch {
      // Not an envelope (or a broken one): counted as one item below.
    }
  }
  counts.set(isStore ? 'error' : 'default', 1)
  return counts
}

/**
 * Counts every rejected ingest request as `rejected` outcomes with the error's reason, so the
 * Outcomes view can tell "rejected" from "never arrived". Attributed to the project in the URL
 * path when it exists and to the request's key when that key is valid for it (else key 0);
 * a request for a project that does not exist records nothing. Over-quota answers are counted
 * by the quota gate, not here. Register before the ingest routes (an `onError` hook).
 */
export function countRejections(app: FastifyInstance, deps: RejectionDeps): void {
  // Bounded (least used evicted first) and timed: a project deleted on another node is
  // forgotten within 30 s, one created anywhere at once (the change feed below).
  const projects = new LRUCache<number, { exists: boolean }>({ max: 10_000, ttl: 30_000 })
  // A project created through any node exists here at once, not after the cache time.
  const off = deps.store.changes.onChange((c) => {
    if (c.topic === 'projects' || c.topic === 'all') projects.clear()
  })
  app.addHook('onClose', async () => off())
  const projectExists = async (id: number): Promise<boolean> => {
    const hit = projects.get(id)
    if (hit !== undefined) return hit.exists
    const exists = (await deps.store.getProject(id)) !== undefined
    projects.set(id, { exists })
    return exists
  }

  const keyIdOf = async (req: FastifyRequest, projectId: number): Promise<number> => {
    try {
      const creds =
        credentialsFromRequest(req.query as Record<string, unknown>, req.headers) ??
        credentialsFromDsn(
          req.ingestBody === undefined ? undefined : parseEnvelopeHeader(req.ingestBody)['dsn'],
        )
      return (await deps.keys.resolve(creds, projectId)).key.id
    } catch {
      return 0
    }
  }

  // Shed and storage-refused requests arrive in bursts: their counts are summed in memory and
  // written once a second, so shedding adds no per-request work to the queue it protects.
  const deferred = new Map<string, OutcomeDelta>()
  let flushTimer: NodeJS.Timeout | undefined
  const flushDeferred = (): void => {
    flushTimer = undefined
    const outcomes = [...deferred.values()]
    deferred.clear()
    if (outcomes.length === 0) return
    deps.committer.write({ events: [], outcomes }).catch((err: unknown) => {
      app.log.error({ err }, 'could not count shed requests')
    })
  }
  const defer = (d: OutcomeDelta): void => {
    const hour = Math.floor(d.at / 3_600_000)
    const k = `${d.projectId}|${d.keyId}|${hour}|${d.reason}|${d.category}`
    const hit = deferred.get(k)
    if (hit !== undefined) hit.quantity += d.quantity
    else deferred.set(k, { ...d })
    if (flushTimer === undefined) {
      flushTimer = setTimeout(flushDeferred, 1000)
      flushTimer.unref()
    }
  }
  // Requests shed before routing (http/early-shed.ts) are tallied by the admission controller.
  const takeEarly = async (): Promise<void> => {
    for (const [projectId, category, quantity] of app.ingestProtection.admission.takeEarlyShed()) {
      if (!(await projectExists(projectId))) continue
      const at = Date.now()
      defer({
        projectId,
        keyId: 0,
        at,
        outcome: 'rejected',
        reason: 'overloaded',
        category,
        quantity,
      })
    }
  }
  const earlyTimer = setInterval(() => {
    takeEarly().catch((err: unknown) => app.log.error({ err }, 'could not count shed requests'))
  }, 1000)
  earlyTimer.unref()
  app.addHook('onClose', async () => {
    clearInterval(earlyTimer)
    await takeEarly().catch(() => undefined)
    clearTimeout(flushTimer)
    flushDeferred()
  })

  app.addHook('onError', async (req, _reply, err: FastifyError | ApiError) => {
    if (err instanceof ApiError && err.code === 'over_quota') return
    const burst =
      err instanceof ApiError && (err.code === 'overloaded' || err.code === 'storage_unavailable')
    const raw = (req.params as { projectId?: string } | undefined)?.projectId ?? ''
    if (!/^\d{1,15}$/.test(raw)) return
    const projectId = Number(raw)
    try {
      if (!(await projectExists(projectId))) return
      const keyId = req.ingestKey?.key.id ?? (burst ? 0 : await keyIdOf(req, projectId))
      const isStore = (req.routeOptions.url ?? '').endsWith('/store/')
      const reason = rejectionReason(err)
      const at = Date.now()
      const outcomes: OutcomeDelta[] = []
      for (const [category, quantity] of rejectedItems(req.ingestBody, isStore)) {
        outcomes.push({ projectId, keyId, at, outcome: 'rejected', reason, category, quantity })
      }
      if (burst) for (const o of outcomes) defer(o)
      else await deps.committer.write({ events: [], outcomes })
    } catch (countErr) {
      req.log.error({ err: countErr }, 'could not count a rejected request')
    }
  })
}
