import type { EventWriteResult, Quota, QuotaStore } from '../store/types.ts'
import type { IngestContext } from './context.ts'

/** The reason code written into rate-limit headers and `over_quota` outcomes. */
export const QUOTA_REASON = 'quota_exceeded'

/** One project's quota and the counter of its current window (this node only). */
interface QuotaState {
  quota: Quota | null
  /** When the configuration was read from the store, ms. */
  loadedAt: number
  /** Start of the window `used` belongs to, ms (-1: none yet). */
  window: number
  /** Events charged in that window. */
  used: number
  /** An event was refused in this window: the limit is announced on every answer until it ends. */
  limited: boolean
}

/** What {@link QuotaGate.admit} decided for one request; hand it back to `settle` or `cancel`. */
export interface QuotaTicket {
  projectId: number
  /** Start of the window the charges belong to; -1 when nothing was charged against a quota. */
  window: number
  /** Per event of the (trimmed) write unit, in order: whether it was charged. */
  charged: boolean[]
  /** Events refused for quota (removed from the write unit, counted as `over_quota`). */
  refused: number
  /** Seconds until the window ends, when something was refused. */
  retryAfter: number | undefined
}

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
 * Per-project event quotas as in-memory fixed windows, each starting with the first event after
 * the previous one ended, so the hot path reads no database: the configuration is cached and
 * re-read at most every `ttlMs`, and stored event ids are looked up only when an envelope would
 * go over the quota (resends of stored ids cost nothing). Charged per `event` item before the
 * commit; charges for events the store reports as duplicates are refunded after it.
 *
 * Each node counts on its own: with several nodes a project may accept up to N × quota per
 * window until the counters move into PostgreSQL.
 */
export class QuotaGate {
  private readonly states = new Map<number, QuotaState>()
  private readonly loading = new Map<number, Promise<QuotaState>>()
  private readonly store: QuotaStore
  private readonly ttlMs: number
  private readonly now: () => number

  constructor(store: QuotaStore, opts: { ttlMs?: number; now?: () => number } = {}) {
    this.store = store
    this.ttlMs = opts.ttlMs ?? 30_000
    this.now = opts.now ?? Date.now
  }

  /** Installs a configuration changed through this node's API (other nodes: within `ttlMs`). */
  set(projectId: number, quota: Quota | null): void {
    const old = this.states.get(projectId)
    const state: QuotaState = { quota, loadedAt: this.now(), window: -1, used: 0, limited: false }
    if (old !== undefined && quota !== null && old.quota?.windowSeconds === quota.windowSeconds) {
      state.window = old.window
      state.used = old.used
      state.limited = old.limited && old.used >= quota.events
    }
    this.states.set(projectId, state)
  }

  /**
   * Charges the events of a request's write unit against its project's quota. Events over the
   * quota are removed from the unit and counted as `over_quota`; events already stored keep
   * their place (the store counts them as duplicates) and cost nothing.
   */
  async admit(ctx: IngestContext): Promise<QuotaTicket> {
    const projectId = ctx.project.id
    const events = ctx.unit.events
    const free: QuotaTicket = {
      projectId,
      window: -1,
      charged: [],
      refused: 0,
      retryAfter: undefined,
    }
    if (events.length === 0) return free
    let state = await this.state(projectId)
    if (state.quota === null) return free
    let window = this.roll(state, state.quota)
    if (state.used + events.length <= state.quota.events) {
      state.used += events.length
      return { ...free, window, charged: events.map(() => true) }
    }
    // Over the quota: ids the project already stored are resends and cost nothing.
    const stored = await this.store.existingEventIds(
      projectId,
      events.map((e) => e.eventId),
    )
    state = await this.state(projectId)
    if (state.quota === null) return free
    window = this.roll(state, state.quota)
    const kept: typeof events = []
    const charged: boolean[] = []
    const seen = new Set<string>()
    let refused = 0
    for (const e of events) {
      if (stored.has(e.eventId) || seen.has(e.eventId)) {
        kept.push(e)
        charged.push(false)
      } else if (state.used < state.quota.events) {
        seen.add(e.eventId)
        state.used++
        kept.push(e)
        charged.push(true)
      } else {
        refused++
      }
    }
    if (refused === 0) return { ...free, window, charged }
    ctx.unit.events = kept
    ctx.outcome('over_quota', QUOTA_REASON, 'error', refused)
    state.limited = true
    return { projectId, window, charged, refused, retryAfter: this.secondsLeft(state, state.quota) }
  }

  /** Refunds the charges of events the store found already stored (after the commit). */
  settle(ticket: QuotaTicket, results: readonly EventWriteResult[]): void {
    let refund = 0
    ticket.charged.forEach((c, i) => {
      if (c && results[i]?.duplicate === true) refund++
    })
    this.refund(ticket, refund)
  }

  /** Refunds every charge of a request whose commit failed. */
  cancel(ticket: QuotaTicket): void {
    this.refund(ticket, ticket.charged.filter(Boolean).length)
  }

  /** Headers announcing an active limit on a successful answer, if one is active. */
  activeLimit(projectId: number): Record<string, string> | undefined {
    const state = this.states.get(projectId)
    if (state === undefined || state.quota === null || !state.limited) return undefined
    if (this.now() >= state.window + state.quota.windowSeconds * 1000) return undefined
    return rateLimitHeaders(this.secondsLeft(state, state.quota), false)
  }

  private refund(ticket: QuotaTicket, n: number): void {
    const state = this.states.get(ticket.projectId)
    if (n === 0 || state === undefined || state.window !== ticket.window) return
    state.used = Math.max(0, state.used - n)
  }

  /** Starts a new window now when the state has none or its window ended; returns its start. */
  private roll(state: QuotaState, quota: Quota): number {
    const now = this.now()
    if (state.window < 0 || now >= state.window + quota.windowSeconds * 1000) {
      state.window = now
      state.used = 0
      state.limited = false
    }
    return state.window
  }

  /** Whole seconds until the current window ends (at least 1), as SDKs parse them. */
  private secondsLeft(state: QuotaState, quota: Quota): number {
    const end = state.window + quota.windowSeconds * 1000
    return Math.max(1, Math.ceil((end - this.now()) / 1000))
  }

  /** The project's state: cached, or (re)read from the store once per `ttlMs`. */
  private async state(projectId: number): Promise<QuotaState> {
    const cached = this.states.get(projectId)
    if (cached !== undefined && this.now() - cached.loadedAt < this.ttlMs) return cached
    let pending = this.loading.get(projectId)
    if (pending === undefined) {
      pending = this.store
        .getQuota(projectId)
        .then((quota) => {
          const current = this.states.get(projectId)
          if (current === undefined || current.quota?.windowSeconds !== quota?.windowSeconds) {
            this.set(projectId, quota)
          } else {
            current.quota = quota
            current.loadedAt = this.now()
          }
          return this.states.get(projectId) as QuotaState
        })
        .finally(() => this.loading.delete(projectId))
      this.loading.set(projectId, pending)
    }
    return pending
  }
}
