import pg from 'pg'
import { backoffDelay } from '../../backoff.ts'
import type { NoticeChannel, NoticeHandler } from '../notice-channel.ts'

/** `application_name` of the listening connection: how it shows in `pg_stat_activity`. */
export const LISTENER_APPLICATION_NAME = 'ingest-listener'
/** Reconnect delays of the listening connection: doubling from the first to the last. */
const RECONNECT_MIN_MS = 100
const RECONNECT_MAX_MS = 2_000

/** What the listener reports of a lost connection (a warning, never a request's error). */
export interface ListenerLog {
  warn(obj: object, msg: string): void
}

/**
 * The one connection per node that LISTENs for every feed (configuration changes, live
 * notices): outside the pool, which would hand it to queries. A channel is listened to from
 * its first subscriber on; notices are handed to the channel's subscribers. A lost connection
 * is re-established with back-off, every channel is listened to again, and each subscriber is
 * told (`reconnected`): PostgreSQL does not replay notices sent while no session listened.
 */
export class PgListener implements NoticeChannel {
  readonly #url: string
  readonly #handlers = new Map<string, Set<NoticeHandler>>()
  #log: ListenerLog | undefined
  #client: pg.Client | undefined
  #closed = false
  #timer: NodeJS.Timeout | undefined
  /** Failed reconnects in a row (the back-off's attempt). */
  #failures = 0
  #reconnects = 0

  private constructor(url: string) {
    this.#url = url
  }

  /** Opens the connection; resolves once it is connected. */
  static async open(url: string): Promise<PgListener> {
    const l = new PgListener(url)
    await l.#connect()
    return l
  }

  /** Where reconnects are reported (the app's logger, once it exists). */
  setLog(log: ListenerLog): void {
    this.#log = log
  }

  async listen(channel: string, handler: NoticeHandler): Promise<() => void> {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) throw new Error(`bad channel name ${channel}`)
    let set = this.#handlers.get(channel)
    if (set === undefined) {
      set = new Set()
      this.#handlers.set(channel, set)
      const c = this.#client
      if (c !== undefined) await c.query(`LISTEN ${channel}`)
    }
    set.add(handler)
    return () => {
      set.delete(handler)
    }
  }

  async notify(sql: string, values: readonly unknown[]): Promise<void> {
    const c = this.#client
    if (c === undefined) throw new Error('the listening connection is down')
    await c.query(sql, [...values])
  }

  connected(): boolean {
    return this.#client !== undefined
  }

  async #connect(): Promise<void> {
    const c = new pg.Client({
      connectionString: this.#url,
      application_name: LISTENER_APPLICATION_NAME,
    })
    c.on('notification', (n) => {
      for (const h of this.#handlers.get(n.channel) ?? []) {
        try {
          h.notice(n.payload)
        } catch {
          // One subscriber's fault does not keep the others from their notices.
        }
      }
    })
    c.on('error', (err) => this.#lost(c, err))
    c.on('end', () => this.#lost(c))
    try {
      await c.connect()
      for (const channel of this.#handlers.keys()) await c.query(`LISTEN ${channel}`)
    } catch (err) {
      await c.end().catch(() => undefined)
      throw err
    }
    if (this.#closed) {
      await c.end().catch(() => undefined)
      return
    }
    this.#client = c
    this.#failures = 0
  }

  #lost(c: pg.Client, err?: unknown): void {
    if (this.#client !== c || this.#closed) return
    this.#client = undefined
    c.removeAllListeners('notification')
    c.end().catch(() => undefined)
    this.#log?.warn({ err }, 'listening connection lost; reconnecting')
    this.#retry()
  }

  #retry(): void {
    if (this.#closed || this.#timer !== undefined) return
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined
        this.#connect().then(
          () => {
            this.#reconnects++
            for (const set of this.#handlers.values()) for (const h of set) h.reconnected()
          },
          (err: unknown) => {
            this.#log?.warn({ err }, 'listening connection: reconnect failed')
            this.#failures++
            this.#retry()
          },
        )
      },
      backoffDelay(this.#failures + 1, RECONNECT_MIN_MS, RECONNECT_MAX_MS),
    )
    this.#timer.unref()
  }

  /** The listening connection's backend pid (tests end it to check the reconnect). */
  listenerPid(): number | undefined {
    return (this.#client as (pg.Client & { processID?: number }) | undefined)?.processID
  }

  /** Reconnects so far and whether it is connected now, for `/metrics`. */
  stats(): { reconnects: number; connected: boolean } {
    return { reconnects: this.#reconnects, connected: this.#client !== undefined }
  }

  async close(): Promise<void> {
    this.#closed = true
    clearTimeout(this.#timer)
    const c = this.#client
    this.#client = undefined
    this.#handlers.clear()
    await c?.end().catch(() => undefined)
  }
}
