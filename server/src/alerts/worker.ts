import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import type { AlertTiming, SmtpConfig } from '../config.ts'
import type { AlertDelivery, AlertStore } from '../store/types.ts'
import { EmailSender } from './channels/email.ts'
import { describeError, SendError } from './channels/send-error.ts'
import { sendWebhook } from './channels/webhook.ts'
import { retryDelay } from './deliveries.ts'
import type { AlertMessage } from './message.ts'

/** Options of {@link AlertWorker}: the timing plus test seams. */
export interface AlertWorkerOptions extends AlertTiming {
  smtp: SmtpConfig | undefined
  /** Webhooks may reach private, loopback and link-local addresses (`ALERT_ALLOW_PRIVATE_TARGETS`). */
  allowPrivateTargets: boolean
  /** Identifies this worker's claims (default: host, pid and a random suffix). */
  workerId?: string
  /** Clock (default `Date.now`); tests move it to expire leases and reach retry times. */
  now?: () => number
  /** Deliveries claimed per round (default 20). */
  batch?: number
  /** Told each attempt's result (`/metrics`): sent, will be retried, or failed for good. */
  onAttempt?: (channel: 'webhook' | 'email', result: 'sent' | 'retry' | 'failed') => void
}

/** Where the worker reports failed attempts (a pino logger fits). */
export interface WorkerLog {
  warn(obj: object, msg: string): void
}

/** How long `stop()` waits for sends in flight before leaving them to their lease. */
const STOP_GRACE_MS = 2_000

/**
 * Drains the delivery outbox. Each round atomically leases due deliveries (so several nodes
 * sharing one database never send the same one at once), sends them, and records the result:
 * `sent`, or a retry at base · 2^(n−1) until `maxAttempts`, or `failed` at once when the
 * receiver refused for good. A node that dies mid-send leaves a lease that expires, and the
 * delivery is tried again by whichever worker runs next.
 */
export class AlertWorker {
  readonly workerId: string
  private readonly store: AlertStore
  private readonly opts: AlertWorkerOptions
  private readonly log: WorkerLog
  private readonly email: EmailSender
  private readonly abort = new AbortController()
  private timer: NodeJS.Timeout | undefined
  private running: Promise<void> | undefined
  private again = false
  private started = false
  private stopping = false

  constructor(store: AlertStore, opts: AlertWorkerOptions, log: WorkerLog) {
    this.store = store
    this.opts = { ...opts, leaseMs: Math.max(opts.leaseMs, opts.sendTimeoutMs * 2 + 1_000) }
    this.log = log
    this.workerId =
      opts.workerId ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`
    this.email = new EmailSender(opts.smtp, opts.sendTimeoutMs)
  }

  private now(): number {
    return (this.opts.now ?? Date.now)()
  }

  /** Starts polling (every `pollMs`, and at once on `wake()`). */
  start(): void {
    if (this.started || this.stopping) return
    this.started = true
    this.schedule(0)
  }

  /** Looks for due deliveries now (called when new ones were written down). */
  wake(): void {
    if (!this.started || this.stopping) return
    if (this.running !== undefined) this.again = true
    else this.schedule(0)
  }

  private schedule(delay: number): void {
    clearTimeout(this.timer)
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.running = this.round().finally(() => {
        this.running = undefined
      })
    }, delay)
    this.timer.unref()
  }

  private async round(): Promise<void> {
    let n = 0
    try {
      n = await this.runOnce()
    } catch (err) {
      if (!this.stopping) this.log.warn({ err }, 'alert worker round failed')
    }
    if (this.stopping) return
    const more = this.again || n >= (this.opts.batch ?? 20)
    this.again = false
    this.schedule(more ? 0 : Math.max(this.opts.pollMs, 10))
  }

  /** Claims one batch of due deliveries and attempts each; resolves with how many. */
  async runOnce(): Promise<number> {
    const claimed = await this.store.claimDeliveries(
      this.workerId,
      this.now(),
      this.opts.leaseMs,
      this.opts.batch ?? 20,
    )
    await Promise.all(claimed.map((d) => this.attempt(d)))
    return claimed.length
  }

  private async send(d: AlertDelivery): Promise<void> {
    const m = JSON.parse(d.message) as AlertMessage
    if (d.channel.type === 'webhook') {
      await sendWebhook(d.channel, m, d.id, {
        timeoutMs: this.opts.sendTimeoutMs,
        signal: this.abort.signal,
        allowPrivate: this.opts.allowPrivateTargets,
      })
    } else {
      await this.email.send(d.channel, m, d.id)
    }
  }

  private async attempt(d: AlertDelivery): Promise<void> {
    try {
      await this.send(d)
    } catch (err) {
      if (this.stopping && this.abort.signal.aborted && !(err instanceof SendError)) {
        // Interrupted by shutdown, not refused: due again at once, attempt not counted.
        await this.store.releaseDelivery(d.id, this.workerId).catch(() => {})
        return
      }
      const permanent = err instanceof SendError && err.permanent
      const failures = d.attempts + 1
      const retryAt =
        permanent || failures >= this.opts.maxAttempts
          ? null
          : this.now() + retryDelay(failures, this.opts)
      const error = err instanceof SendError ? err.message : describeError(err)
      this.log.warn(
        { deliveryId: d.id, attempt: failures, retryAt, error },
        retryAt === null ? 'alert delivery failed' : 'alert delivery will be retried',
      )
      this.opts.onAttempt?.(d.channel.type, retryAt === null ? 'failed' : 'retry')
      await this.finish(d, { ok: false, at: this.now(), error, retryAt })
      return
    }
    this.opts.onAttempt?.(d.channel.type, 'sent')
    await this.finish(d, { ok: true, at: this.now() })
  }

  private async finish(
    d: AlertDelivery,
    result: Parameters<AlertStore['finishAttempt']>[2],
  ): Promise<void> {
    try {
      await this.store.finishAttempt(d.id, this.workerId, result)
    } catch (err) {
      // After shutdown the store may be closed: the lease expires and another round retries.
      if (!this.stopping) throw err
    }
  }

  /** Stops polling, aborts webhook sends in flight and waits briefly for the rest. */
  async stop(): Promise<void> {
    this.stopping = true
    clearTimeout(this.timer)
    this.timer = undefined
    this.abort.abort()
    const running = this.running
    if (running !== undefined) {
      let timeout: NodeJS.Timeout | undefined
      await Promise.race([
        running,
        new Promise<void>((resolve) => {
          timeout = setTimeout(resolve, STOP_GRACE_MS)
        }),
      ])
      clearTimeout(timeout)
    }
    this.email.close()
  }
}
