import type { LiveBus, LiveEvents } from './bus.ts'

/** One stored event as every live stream sees it, named by a resumable id. */
export interface LiveNotice {
  /** The event's row id: the SSE `id:`, the same on every node, so a stream resumes anywhere. */
  id: number
  projectId: number
  issueId: number
  eventId: string
  issueCreated: boolean
  regressed: boolean
}

/** What a live stream wants from the feed. */
export interface LiveSubscriber {
  notice(n: LiveNotice): void
  /**
   * Notices may have been lost (the node's listening connection dropped): streams end, and the
   * browser reconnects with `Last-Event-ID`, which replays what it missed from the database.
   */
  gap(): void
  /** Whether a stream is open: a single node skips the row-id lookups while none is. */
  watching(): boolean
}

/**
 * Where the SSE streams get notices of stored events from. The bus stays in-process (alerts
 * subscribe to it); the feed is the cross-node view: on PostgreSQL every node's commits reach
 * every node (postgres-feed.ts), on SQLite there is one node and it stays in-process.
 */
export interface LiveFeed {
  subscribe(s: LiveSubscriber): () => void
  /** Stops listening; notices of commits announced before are published first. */
  close(): Promise<void>
}

/** A stored-event announcement from the bus. */
export type Stored = LiveEvents['event.stored'][0]

/**
 * The fan-out both feeds share: subscribers, and a queue of announcements handed to one
 * `handle` at a time in announcement order; what arrives while a batch is being handled
 * becomes the next batch, so a slow round trip coalesces notices instead of queueing calls.
 */
export class FeedCore {
  readonly subscribers = new Set<LiveSubscriber>()
  private pending: Stored[] = []
  private running: Promise<void> | undefined
  private readonly bus: LiveBus
  private readonly handle: (batch: Stored[]) => Promise<void>
  private readonly wanted: () => boolean

  /**
   * `handle` takes one batch (its errors are the feed's own business: logged, retried or
   * dropped); `wanted` is false while nothing would use the notices (no stream on SQLite).
   */
  constructor(bus: LiveBus, handle: (batch: Stored[]) => Promise<void>, wanted: () => boolean) {
    this.bus = bus
    this.handle = handle
    this.wanted = wanted
    bus.on('event.stored', this.onStored)
  }

  private readonly onStored = (e: Stored): void => {
    if (!this.wanted()) return
    this.pending.push(e)
    this.running ??= this.run()
  }

  private async run(): Promise<void> {
    // One turn of the event loop first: a group commit's requests share one batch.
    await new Promise((r) => setImmediate(r))
    try {
      while (this.pending.length > 0) {
        const batch = this.pending
        this.pending = []
        await this.handle(batch)
      }
    } finally {
      this.running = undefined
    }
  }

  subscribe(s: LiveSubscriber): () => void {
    this.subscribers.add(s)
    return () => this.subscribers.delete(s)
  }

  /** Whether any subscriber has a stream open. */
  watched(): boolean {
    for (const s of this.subscribers) if (s.watching()) return true
    return false
  }

  emit(n: LiveNotice): void {
    for (const s of this.subscribers) s.notice(n)
  }

  gap(): void {
    for (const s of this.subscribers) s.gap()
  }

  /** Stops taking announcements and waits for the batches already queued. */
  async drain(): Promise<void> {
    this.bus.off('event.stored', this.onStored)
    await this.running
  }
}
