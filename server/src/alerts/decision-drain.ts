import { randomUUID } from 'node:crypto'
import type { AlertOutboxStore } from '../store/types.ts'
import type { AlertTriggers } from './triggers.ts'

/** How long a node holds a claimed decision before another may take it over. */
const LEASE_MS = 30_000
const BATCH = 100

/**
 * Moves the alert decisions the ingest transaction recorded (`alert_triggers`) into the
 * delivery outbox, on whichever node polls first: a claim leases them, the delivery is
 * written down under its unique key, then the decision is removed. A node that dies in
 * between leaves the lease to lapse and another node repeats the step, which the unique key
 * makes a no-op; so an alert is neither lost nor sent twice.
 */
export class DecisionDrain {
  readonly #store: AlertOutboxStore
  readonly #triggers: AlertTriggers
  readonly #onCreated: () => void
  readonly #onError: (err: unknown) => void
  readonly #worker = `drain-${randomUUID()}`
  #timer: NodeJS.Timeout | undefined
  #running: Promise<number> | undefined

  constructor(
    store: AlertOutboxStore,
    triggers: AlertTriggers,
    opts: { onCreated: () => void; onError: (err: unknown) => void },
  ) {
    this.#store = store
    this.#triggers = triggers
    this.#onCreated = opts.onCreated
    this.#onError = opts.onError
  }

  /**
   * One pass over the claimable decisions, after any pass already running (so a decision
   * committed before this call is seen); resolves with how many it handled.
   */
  drain(): Promise<number> {
    const next = (this.#running ?? Promise.resolve(0))
      .catch(() => 0)
      .then(() => this.#pass(Date.now()))
    this.#running = next
    void next
      .finally(() => {
        if (this.#running === next) this.#running = undefined
      })
      .catch(() => undefined)
    return next
  }

  async #pass(now: number): Promise<number> {
    let handled = 0
    for (;;) {
      const batch = await this.#store.claimAlertDecisions(this.#worker, now, LEASE_MS, BATCH)
      for (const d of batch) {
        const created = await this.#triggers.deliverDecision(d)
        await this.#store.finishAlertDecision(d.id)
        if (created.length > 0) this.#onCreated()
        handled++
      }
      if (batch.length < BATCH) return handled
    }
  }

  /** Polls every `intervalMs` (and at once). */
  start(intervalMs: number): void {
    const tick = () => {
      this.drain().catch(this.#onError)
    }
    tick()
    this.#timer = setInterval(tick, intervalMs)
    this.#timer.unref()
  }

  /** Stops polling and waits for a running pass. */
  async stop(): Promise<void> {
    clearInterval(this.#timer)
    this.#timer = undefined
    await this.#running?.catch(() => undefined)
  }
}
