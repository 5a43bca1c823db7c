import type pg from 'pg'
import { type Change, type ChangeFeed, type ChangeTopic, LocalChangeFeed } from '../change-feed.ts'
import type { NoticeChannel } from '../notice-channel.ts'
import { run } from './db.ts'

/** The NOTIFY channel of configuration changes. */
const CHANNEL = 'ingest_changes'
const TOPICS = new Set<ChangeTopic>(['keys', 'projects', 'quotas', 'all'])

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
 * The change feed of the PostgreSQL store: notices arrive on `ingest_changes` through the node's
 * one listening connection (listener.ts), and are sent with `pg_notify` through the pool after
 * the change committed. NOTIFY is delivered within milliseconds to every listening session,
 * this node's included. After the listening connection was lost and is back, every cache is
 * cleared (`all`): notices sent while it was gone are not replayed by PostgreSQL.
 */
export class PgChangeFeed implements ChangeFeed {
  readonly #local = new LocalChangeFeed()
  readonly #pool: pg.Pool
  readonly #listener: NoticeChannel
  #unlisten: (() => void) | undefined
  #lagMs = 0

  private constructor(pool: pg.Pool, listener: NoticeChannel) {
    this.#pool = pool
    this.#listener = listener
  }

  /** Opens the feed; resolves once its channel is listened to. */
  static async open(pool: pg.Pool, listener: NoticeChannel): Promise<PgChangeFeed> {
    const feed = new PgChangeFeed(pool, listener)
    feed.#unlisten = await listener.listen(CHANNEL, {
      notice: (payload) => {
        feed.#lagMs = lagOf(payload)
        feed.#local.emit(parseChange(payload))
      },
      reconnected: () => feed.#local.emit({ topic: 'all' }),
    })
    return feed
  }

  /** Reconnects so far, the last notice's delay (ms) and whether it listens now, for `/metrics`. */
  stats(): { reconnects: number; lagMs: number; connected: boolean } {
    return { ...this.#listener.stats(), lagMs: this.#lagMs }
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
    this.#unlisten?.()
    await this.#local.close()
  }
}
