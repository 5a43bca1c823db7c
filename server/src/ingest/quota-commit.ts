import { ApiError } from '../errors.ts'
import type { LiveBus } from '../live/bus.ts'
import type { GroupCommitter } from '../store/group-commit.ts'
import type { WriteUnitResult } from '../store/types.ts'
import { announceStored } from './commit.ts'
import type { IngestContext } from './context.ts'
import type { IngestProtection } from './protection.ts'
import { storageUnavailable } from './protection.ts'
import { type QuotaGate, rateLimitHeaders } from './quota.ts'

/** What {@link commitWithQuota} needs from the app. */
export interface QuotaCommitDeps {
  quota: QuotaGate
  committer: GroupCommitter
  bus: LiveBus
  protection: IngestProtection
}

/** Per-request choices of {@link commitWithQuota}. */
export interface QuotaCommitOptions {
  /** How refused items are named in the 429 detail ("event(s)", "error record(s)"). */
  noun: string
  /** Runs after the quota decision, before the write (OTLP counts its other records only when not limited). */
  beforeWrite?: (limited: boolean) => void
}

/**
 * The one sequence every client-data write goes through (the request already holds its place
 * in the bounded ingest queue, `protection.ts`): the project's quota charged per event, the group commit (a failed write
 * refunds the charge and answers 503 with `Retry-After`, never 500), duplicates refunded, new
 * events announced, and finally the 429 when some events were over the quota (what fitted is
 * stored). Returns the commit's result.
 */
export async function commitWithQuota(
  deps: QuotaCommitDeps,
  ctx: IngestContext,
  opts: QuotaCommitOptions,
): Promise<WriteUnitResult> {
  const { quota, committer, bus, protection } = deps
  const ticket = await quota.admit(ctx)
  opts.beforeWrite?.(ticket.retryAfter !== undefined)
  const result = await committer.write(ctx.unit).catch((err: unknown) => {
    quota.cancel(ticket)
    if (err instanceof ApiError) throw err
    throw Object.assign(storageUnavailable(protection.retryAfterSeconds, 'write failed'), {
      cause: err,
    })
  })
  quota.settle(ticket, result.events)
  announceStored(bus, ctx.project.id, result.events)
  if (ticket.retryAfter !== undefined) {
    throw new ApiError(
      'over_quota',
      `event quota exceeded: ${ticket.refused} ${opts.noun} refused, retry after ${ticket.retryAfter} s`,
      [],
      rateLimitHeaders(ticket.retryAfter, true),
    )
  }
  return result
}
