import { randomUUID } from 'node:crypto'
import type { MonitorStore } from './monitor-types.ts'

/**
 * Longest a lease of a periodic job lasts without renewal. A holder that dies is replaced at
 * most this plus one poll later: 45 s + 15 s stays within the minute the cluster promises.
 */
export const JOB_LEASE_MS = 45_000
/** How often every node asks whether the job is due and whether it may run it. */
export const JOB_POLL_MS = 15_000

/** What a leased job needs of the store: the lease rows the cron clock already uses. */
export type LeaseStore = Pick<
  MonitorStore,
  'acquireLease' | 'releaseLease' | 'getLease' | 'noteTick'
>

/** Options of {@link LeasedJob}. */
export interface LeasedJobOptions {
  /** The lease row's name: one per job. */
  name: string
  /** Time between runs, ms, whichever node makes them. */
  intervalMs: number
  /** The work; its result is ignored. */
  run: (now: number) => Promise<unknown>
  onError: (err: unknown) => void
  /** This node's name in the lease (default: a random id). */
  holder?: string
  leaseMs?: number
  pollMs?: number
  now?: () => number
}

/**
 * A periodic job that exactly one node of a cluster runs: each node polls, takes or renews the
 * job's lease (`clock_leases`, the row the cron clock uses), and the holder runs the job when
 * its interval has passed since the last run any node recorded (`last_tick`), so the schedule
 * survives a change of holder instead of restarting. The lease is renewed while a long run
 * lasts. With SQLite (one process) the same rows make it a plain timer.
 */
export class LeasedJob {
  readonly holder: string
  readonly #store: LeaseStore
  readonly #opts: LeasedJobOptions
  readonly #leaseMs: number
  readonly #now: () => number
  #timer: NodeJS.Timeout | undefined
  #running: Promise<unknown> = Promise.resolve()
  #stopped = false

  constructor(store: LeaseStore, opts: LeasedJobOptions) {
    this.#store = store
    this.#opts = opts
    this.holder = opts.holder ?? `node-${randomUUID()}`
    this.#leaseMs = opts.leaseMs ?? JOB_LEASE_MS
    this.#now = opts.now ?? Date.now
  }

  /**
   * One poll: runs the job if this node holds (or takes) the lease and the job is due.
   * Resolves with whether it ran.
   */
  async runOnce(): Promise<boolean> {
    const { name, intervalMs } = this.#opts
    const now = this.#now()
    if (!(await this.#store.acquireLease(name, this.holder, now, this.#leaseMs))) return false
    const lease = await this.#store.getLease(name)
    if (lease !== undefined && lease.lastTick > 0 && now < lease.lastTick + intervalMs) return false
    const renew = setInterval(() => {
      this.#store
        .acquireLease(name, this.holder, this.#now(), this.#leaseMs)
        .catch(this.#opts.onError)
    }, this.#leaseMs / 3)
    renew.unref()
    try {
      await this.#opts.run(now)
    } finally {
      clearInterval(renew)
    }
    await this.#store.noteTick(name, this.holder, now)
    return true
  }

  /** Starts polling (once at once, then every poll interval). */
  start(): void {
    this.#stopped = false
    const poll = () => {
      if (this.#stopped) return
      this.#running = this.#running.then(() => this.runOnce()).catch(this.#opts.onError)
    }
    poll()
    this.#timer = setInterval(
      poll,
      Math.min(this.#opts.intervalMs, this.#opts.pollMs ?? JOB_POLL_MS),
    )
    this.#timer.unref()
  }

  /** Stops polling, waits for a running job and gives the lease up for another node. */
  async stop(): Promise<void> {
    this.#stopped = true
    clearInterval(this.#timer)
    this.#timer = undefined
    await this.#running.catch(() => undefined)
    await this.#store.releaseLease(this.#opts.name, this.holder).catch(this.#opts.onError)
  }
}
