import pg from 'pg'
import { backoffDelay } from '../../backoff.ts'
import { type Change, type ChangeFeed, type ChangeTopic, LocalChangeFeed } from '../change-feed.ts'
import { run } from './db.ts'

/** The NOTIFY channel of configuration changes. */
const CHANNEL = 'ingest_changes'
const TOPICS = new Set<ChangeTopic>(['keys', 'projects', 'quotas', 'rules', 'all'])
/** Reconnect delays of the listening connection: doubling from the first to the last. */
const RECONNECT_MIN_MS = 250
const RECONNECT_MAX_MS = 5_000

/** A notice's payload as another node wrote it; anything else becomes `all` (drop everything). */
function parseChange(payload: string | undefined): Change {
  try {
    const v: unknown = JSON.parse(payload ?? '')
    if (typeof v !== 'object' || v === null) return { topic: 'all' }
    const topic = 'topic' in v ? v.topic : undefined
    const projectId = 'projectId' in v ? v.projectId : undefined
    if (typeof topic !== 'string' || !TOPICS.has(topic as ChangeTopic)) return { topic: 'all' }
    return typeof projectId === 'number'
      ? { topic: topic as ChangeTopic, projectId }
      : { topic: topic as ChangeTopic }
  } catch {
    return { topic: 'all' }
  }
}

/** How long a notice took from its sender's clock to this node's, ms (0 when it says nothing). */
function lagOf(payload: string | undefined): number {
  const m = /"sentAt":(\d{1,15})/.exec(payload ?? '')
  return m === null ? 0 : Math.max(0, Date.now() - Number(m[1]))
}

/**
 * The change feed of the PostgreSQL store: one dedicated connection per node LISTENs on
 * `ingest_changes` (outside the pool, which would hand it to queries), notices are sent with
 * `pg_notify` through the pool after the change committed. NOTIFY is delivered within
 * milliseconds to every listening session, this node's included. A lost connection is
 * re-established with back-off, and then every cache is cleared (`all`): notices sent while it
 * was gone are not replayed by PostgreSQL.
 */
export class PgChangeFeed implements ChangeFeed {
  readonly #local = new LocalChangeFeed()
  readonly #url: string
  readonly #pool: pg.Pool
  #client: pg.Client | undefined
  #closed = false
  #timer: NodeJS.Timeout | undefined
  /** Failed reconnects in a row (the back-off's attempt). */
  #failures = 0
  #reconnects = 0
  #lagMs = 0

  private constructor(url: string, pool: pg.Pool) {
    this.#url = url
    this.#pool = pool
  }

  /** Opens the feed; resolves once the first LISTEN is in place. */
  static async open(url: string, pool: pg.Pool): Promise<PgChangeFeed> {
    const feed = new PgChangeFeed(url, pool)
    await feed.#connect()
    return feed
  }

  async #connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.#url })
    client.on('notification', (n) => {
      if (n.channel !== CHANNEL) return
      this.#lagMs = lagOf(n.payload)
      this.#local.emit(parseChange(n.payload))
    })
    client.on('error', () => this.#lost(client))
    client.on('end', () => this.#lost(client))
    await client.connect()
    await client.query(`LISTEN ${CHANNEL}`)
    if (this.#closed) {
      await client.end().catch(() => undefined)
      return
    }
    this.#client = client
    this.#failures = 0
  }

  #lost(client: pg.Client): void {
    if (this.#client !== client || this.#closed) return
    this.#client = undefined
    client.end().catch(() => undefined)
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
            this.#local.emit({ topic: 'all' })
          },
          () => {
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

  /** Reconnects so far, the last notice's delay (ms) and whether it listens now, for `/metrics`. */
  stats(): { reconnects: number; lagMs: number; connected: boolean } {
    return {
      reconnects: this.#reconnects,
      lagMs: this.#lagMs,
      connected: this.#client !== undefined,
    }
  }

  onChange(cb: (c: Change) => void): () => void {
    return this.#local.onChange(cb)
  }

  async publish(c: Change): Promise<void> {
    // This node at once; the others (and this one again, harmlessly) through NOTIFY.
    this.#local.emit(c)
    // `sentAt` lets the receivers measure the feed's delay (parseChange ignores it).
    const payload = JSON.stringify({ ...c, sentAt: Date.now() })
    await run(this.#pool, 'SELECT pg_notify($1, $2)', [CHANNEL, payload])
  }

  async close(): Promise<void> {
    this.#closed = true
    clearTimeout(this.#timer)
    const c = this.#client
    this.#client = undefined
    await this.#local.close()
    await c?.end().catch(() => undefined)
  }
}
