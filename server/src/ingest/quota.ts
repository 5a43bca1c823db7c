import type { UnitQuota } from '../store/quota-rules.ts'
import type { Quota } from '../store/types.ts'

/** The reason code written into rate-limit headers and `over_quota` outcomes. */
export const QUOTA_REASON = 'quota_exceeded'

/** Rate-limit headers in the form the strictest SDK parser accepts (protocol.md §5.1). */
export function rateLimitHeaders(seconds: number, with429: boolean): Record<string, string> {
  const value = `${seconds}:error:project:${QUOTA_REASON}`
  return {
    ...(with429 ? { 'retry-after': String(seconds) } : {}),
    'x-sentry-rate-limits': value,
    'x-ingest-rate-limits': value,
  }
}

/**
 * The node's view of per-project event quotas, for the headers of its answers. The count
 * itself is not here: it is charged in the database (store/quota-rules.ts, the
 * `quota_windows` row; in the ingest transaction on SQLite, by a reservation before it on
 * PostgreSQL), so the quota holds exactly across every node on one database and a refused
 * event is never stored. What the node keeps is the last window state a commit of its
 * own reported per project, so a 200 can announce a limit that is in force (Relay does the
 * same on successful answers) without another read.
 */
export class QuotaGate {
  private readonly seen = new Map<number, UnitQuota>()
  private readonly now: () => number

  constructor(opts: { now?: () => number } = {}) {
    this.now = opts.now ?? Date.now
  }

  /** A configuration changed (through any node): forget what the last window said. */
  set(projectId: number, _quota: Quota | null): void {
    this.seen.delete(projectId)
  }

  /** Records what a commit's quota charge met (store result of one unit). */
  record(projectId: number, q: UnitQuota | undefined): void {
    if (q === undefined) this.seen.delete(projectId)
    else this.seen.set(projectId, q)
  }

  /** Whole seconds until a window ends (at least 1), as SDKs parse them. */
  secondsLeft(q: UnitQuota): number {
    return Math.max(1, Math.ceil((q.windowEnd - this.now()) / 1000))
  }

  /** Headers announcing an active limit on a successful answer, if one is active. */
  activeLimit(projectId: number): Record<string, string> | undefined {
    const q = this.seen.get(projectId)
    if (q === undefined || !q.limited || this.now() >= q.windowEnd) return undefined
    return rateLimitHeaders(this.secondsLeft(q), false)
  }

  /** Forgets every project (the node may have missed configuration changes). */
  clear(): void {
    this.seen.clear()
  }
}
