import type { IngestStore, WriteUnit, WriteUnitResult } from './types.ts'

interface Pending {
  unit: WriteUnit
  resolve: (r: WriteUnitResult) => void
  reject: (e: unknown) => void
  /** When it was queued (performance.now()). */
  at: number
}

/**
 * Group commit: units queued by concurrent requests are written in one store transaction,
 * so the cost of a durable commit (one fsync) is shared. A request's promise resolves only after
 * the transaction holding its unit committed, so answering 200 then means "durably stored".
 * A group is written once its oldest unit waited `delayMs` or it is full, also right after the
 * previous commit: a store that commits off the event loop (the SQLite writer thread) would
 * otherwise be handed a small group after each quick commit and spend one fsync on each.
 */
export class GroupCommitter {
  private queue: Pending[] = []
  private timer: NodeJS.Timeout | undefined
  private flushing: Promise<void> | undefined
  private readonly store: IngestStore
  private readonly delayMs: number
  private readonly maxBatch: number

  constructor(store: IngestStore, opts: { delayMs: number; maxBatch?: number }) {
    this.store = store
    this.delayMs = opts.delayMs
    this.maxBatch = opts.maxBatch ?? 500
  }

  /** Queues a unit; resolves with its results once committed. */
  write(unit: WriteUnit): Promise<WriteUnitResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ unit, resolve, reject, at: performance.now() })
      if (this.queue.length >= this.maxBatch) this.kick(0)
      else this.kick(this.delayMs)
    })
  }

  private kick(delay: number): void {
    if (this.flushing !== undefined) return
    if (delay === 0 && this.timer !== undefined) {
      clearTimeout(this.timer)
      this.timer = undefined
    }
    if (this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined
        void this.drain(false)
      }, delay)
    }
  }

  /** Writes everything queued now; resolves when the queue is empty. */
  flush(): Promise<void> {
    return this.drain(true)
  }

  /** Writes groups until the queue is empty; unless `now`, a later group waits out its delay. */
  private async drain(now: boolean): Promise<void> {
    let first = true
    while (this.queue.length > 0) {
      if (this.flushing !== undefined) {
        await this.flushing
        continue
      }
      const oldest = this.queue[0]?.at ?? 0
      const wait = this.delayMs - (performance.now() - oldest)
      if (!now && !first && wait > 0 && this.queue.length < this.maxBatch) {
        this.kick(Math.ceil(wait))
        return
      }
      first = false
      const batch = this.queue.splice(0, this.maxBatch)
      this.flushing = this.store
        .write(batch.map((p) => p.unit))
        .then(
          (results) => {
            batch.forEach((p, i) => {
              const r = results[i]
              if (r === undefined) p.reject(new Error('store returned fewer results than units'))
              else p.resolve(r)
            })
          },
          (err: unknown) => {
            for (const p of batch) p.reject(err)
          },
        )
        .finally(() => {
          this.flushing = undefined
        })
      await this.flushing
    }
  }
}
