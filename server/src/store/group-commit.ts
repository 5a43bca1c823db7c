import type { IngestStore, OutcomeDelta, WriteUnit, WriteUnitResult } from './types.ts'

/**
 * Told about every committed write (metrics/registry.ts): how many units it held, how long the
 * store took, and the outcome counters its transaction added. A group that failed and was
 * retried unit by unit is reported per retried write that committed, never for the failed one,
 * so nothing is counted twice.
 */
export interface CommitObserver {
  committed(units: number, seconds: number, outcomes: readonly OutcomeDelta[]): void
}

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
 *
 * `maxInFlight` groups may commit at once: 1 for SQLite (one writer anyway), up to the pool
 * size for PostgreSQL, whose row locks let disjoint groups commit in parallel. When a group
 * fails, its transaction rolled back as a whole, so each of its units is retried alone: a unit
 * that cannot be written fails only its own request, never the others grouped with it.
 */
export class GroupCommitter {
  private queue: Pending[] = []
  private timer: NodeJS.Timeout | undefined
  private readonly inFlight = new Set<Promise<void>>()
  private readonly store: IngestStore
  private readonly delayMs: number
  private readonly maxBatch: number
  private readonly maxInFlight: number
  private readonly startAt: number
  /** Send a group once every unit seen in flight lately is back in the queue (`wave`). */
  private readonly wave: boolean
  /** Units of the groups being committed. */
  private committing = 0
  /** The most units queued and committing at once in this second and the one before. */
  private peak = 0
  private peakBefore = 0
  private peakSince = 0
  private readonly observer: CommitObserver | undefined

  /**
   * `startAt`: a group this large goes to the store at once when a commit slot is free, from
   * inside the request that filled it, instead of after its delay or the loop turn (default:
   * `maxBatch`). With one writer (SQLite) this lets the writer commit the first part of a wave
   * of requests while the main thread still reads the rest: 50 connections answered by one
   * commit otherwise come back together, and main thread and writer take turns instead of
   * working at once (open-store.ts `commitStartAt`).
   *
   * `wave`: a group also goes at once when the units queued and committing reach the most seen
   * at once in the last one to two seconds. Clients that wait for their answer before sending
   * again (a fixed set of connections: SDK transports, workers) come back together after the
   * commit that answered them; once all of them are back, nobody else is on the way, and the
   * rest of the delay would only idle (on PostgreSQL that wait had been a seventh of the cycle
   * at 50 connections; on SQLite it left the writer waiting). Under a stream of new clients
   * the count seldom reaches its recent peak, and the delay decides as before.
   */
  constructor(
    store: IngestStore,
    opts: {
      delayMs: number
      maxBatch?: number | undefined
      maxInFlight?: number
      startAt?: number | undefined
      wave?: boolean | undefined
      observer?: CommitObserver | undefined
    },
  ) {
    this.observer = opts.observer
    this.store = store
    this.delayMs = opts.delayMs
    this.maxBatch = opts.maxBatch ?? 500
    this.maxInFlight = Math.max(1, opts.maxInFlight ?? 1)
    this.startAt = Math.max(1, Math.min(opts.startAt ?? this.maxBatch, this.maxBatch))
    this.wave = opts.wave === true
  }

  /** Whether the units in flight are as many as lately at most, at `now` (see `wave`). */
  private waveIn(now: number): boolean {
    if (!this.wave) return false
    const total = this.queue.length + this.committing
    if (now - this.peakSince >= 1000) {
      // The second before this one, or none after a quiet second.
      this.peakBefore = now - this.peakSince < 2000 ? this.peak : 0
      this.peak = 0
      this.peakSince = now
    }
    if (total > this.peak) this.peak = total
    return total >= Math.max(this.peak, this.peakBefore)
  }

  /** Units waiting for a group (not those of groups being committed). */
  queued(): number {
    return this.queue.length
  }

  /** Queues a unit; resolves with its results once committed. */
  write(unit: WriteUnit): Promise<WriteUnitResult> {
    return new Promise((resolve, reject) => {
      const at = performance.now()
      this.queue.push({ unit, resolve, reject, at })
      if (
        (this.queue.length >= this.startAt || this.waveIn(at)) &&
        this.inFlight.size < this.maxInFlight
      ) {
        if (this.timer !== undefined) clearTimeout(this.timer)
        this.timer = undefined
        void this.drain(false)
      } else if (this.queue.length >= this.maxBatch) this.kick(0)
      else this.kick(this.delayMs)
    })
  }

  private kick(delay: number): void {
    // With every commit slot busy, the drain waiting for a slot picks the queue up.
    if (this.inFlight.size >= this.maxInFlight) return
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

  /** Writes everything queued now; resolves when the queue is empty and every commit ended. */
  async flush(): Promise<void> {
    await this.drain(true)
    while (this.inFlight.size > 0) await Promise.all(this.inFlight)
  }

  /** Writes groups until the queue is empty; unless `now`, a later group waits out its delay. */
  private async drain(now: boolean): Promise<void> {
    let first = true
    while (this.queue.length > 0) {
      if (this.inFlight.size >= this.maxInFlight) {
        await Promise.race(this.inFlight)
        continue
      }
      const oldest = this.queue[0]?.at ?? 0
      const at = performance.now()
      const wait = this.delayMs - (at - oldest)
      if (!now && !first && wait > 0 && this.queue.length < this.startAt && !this.waveIn(at)) {
        this.kick(Math.ceil(wait))
        return
      }
      first = false
      const batch = this.queue.splice(0, this.maxBatch)
      this.committing += batch.length
      const commit: Promise<void> = this.commit(batch).finally(() => {
        this.committing -= batch.length
        this.inFlight.delete(commit)
        // Several slots: this drain did not wait, so a freed slot restarts the queue.
        if (this.maxInFlight > 1 && this.queue.length > 0) this.kick(0)
      })
      this.inFlight.add(commit)
      // One slot: wait for this commit, then gather the next group (see the class comment).
      if (this.maxInFlight === 1) await commit
    }
  }

  /** Commits one group; on failure retries each unit alone so only the failing one rejects. */
  private async commit(batch: Pending[]): Promise<void> {
    let results: WriteUnitResult[]
    try {
      results = await this.storeWrite(batch.map((p) => p.unit))
    } catch (err) {
      if (batch.length === 1) {
        batch[0]?.reject(err)
        return
      }
      for (const p of batch) {
        try {
          const [r] = await this.storeWrite([p.unit])
          if (r === undefined) p.reject(new Error('store returned no result for the unit'))
          else p.resolve(r)
        } catch (own) {
          p.reject(own)
        }
      }
      return
    }
    batch.forEach((p, i) => {
      const r = results[i]
      if (r === undefined) p.reject(new Error('store returned fewer results than units'))
      else p.resolve(r)
    })
  }

  /** One store write, reported to the observer once it committed. */
  private async storeWrite(units: WriteUnit[]): Promise<WriteUnitResult[]> {
    const observer = this.observer
    if (observer === undefined) return this.store.write(units)
    const t0 = performance.now()
    const results = await this.store.write(units)
    const seconds = (performance.now() - t0) / 1000
    let outcomes: readonly OutcomeDelta[] = NONE
    for (const r of results) if (r.outcomes !== undefined) outcomes = r.outcomes
    try {
      observer.committed(units.length, seconds, outcomes)
    } catch {
      // The write committed: a fault of the observer must not fail (and retry) it.
    }
    return results
  }
}

const NONE: readonly OutcomeDelta[] = []
