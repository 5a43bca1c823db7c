import type { IngestStore, WriteUnit, WriteUnitResult } from './types.ts'

interface Pending {
  unit: WriteUnit
  resolve: (r: WriteUnitResult) => void
  reject: (e: unknown) => void
}

/**
 * Group commit: units queued by concurrent requests are written in one store transaction,
 * so the cost of a durable commit (one fsync) is shared. A request's promise resolves only after
 * the transaction holding its unit committed, so answering 200 then means "durably stored".
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
      this.queue.push({ unit, resolve, reject })
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
        void this.flush()
      }, delay)
    }
  }

  /** Writes everything queued now; resolves when the queue is empty. */
  async flush(): Promise<void> {
    while (this.queue.length > 0) {
      if (this.flushing !== undefined) {
        await this.flushing
        continue
      }
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
