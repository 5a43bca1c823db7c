import { ApiError } from '../errors.ts'
import type { LiveBus } from '../live/bus.ts'
import type { GroupCommitter } from '../store/group-commit.ts'
import type { WriteUnitResult } from '../store/types.ts'
import { announceStored } from './commit.ts'
import type { IngestContext } from './context.ts'
import { digestFailureError } from './digest-pool.ts'
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
}

/**
 * The one sequence every client-data write goes through (the request already holds its place
 * in the bounded ingest queue, `protection.ts`): the group commit, which charges the project's
 * quota per new event in the same transaction that stores them and leaves out what is over it
 * (a failed write answers 503 with `Retry-After`, never 500); new events announced; and
 * finally the 429 when some events were over the quota (what fitted is stored). Outcomes that
 * only count when nothing was refused go in the unit's `outcomesIfAdmitted`.
 */
export async function commitWithQuota(
  deps: QuotaCommitDeps,
  ctx: IngestContext,
  opts: QuotaCommitOptions,
): Promise<WriteUnitResult> {
  const { quota, committer, bus, protection } = deps
  const result = await committer.write(ctx.unit).catch((err: unknown) => {
    if (err instanceof ApiError) throw err
    throw Object.assign(storageUnavailable(protection.retryAfterSeconds, 'write failed'), {
      cause: err,
    })
  })
  // Undigested events the write could not digest refuse the request; nothing of it was written.
  if (result.refused !== undefined) throw digestFailureError(result.refused)
  // A unit without events was not charged (none sent, or every one filtered): it says nothing
  // about the window.
  if (result.quota !== undefined || result.events.length > 0)
    quota.record(ctx.project.id, result.quota)
  announceStored(bus, ctx.project.id, result.events)
  if (result.quota !== undefined && result.quota.refused > 0) {
    const seconds = quota.secondsLeft(result.quota)
    throw new ApiError(
      'over_quota',
      `event quota exceeded: ${result.quota.refused} ${opts.noun} refused, retry after ${seconds} s`,
      [],
      rateLimitHeaders(seconds, true),
    )
  }
  return result
}
