import type pg from 'pg'

/** The socket under a pg connection, corked around a batch so the batch leaves in one write. */
interface Corkable {
  cork(): void
  uncork(): void
}

const socketOf = (client: pg.PoolClient): Corkable | undefined => {
  const stream = (client as unknown as { connection?: { stream?: Partial<Corkable> } }).connection
    ?.stream
  return typeof stream?.cork === 'function' && typeof stream.uncork === 'function'
    ? (stream as Corkable)
    : undefined
}

interface Queued {
  config: pg.QueryConfig
  resolve: (r: pg.QueryResult) => void
  reject: (err: unknown) => void
}

/**
 * One transaction's connection with its statements pipelined (the pool runs pg's `pipeline`
 * mode, db.ts): every statement issued within one turn of the event loop is sent in one socket
 * write, and PostgreSQL answers them in order. Why: on the measured set-up (a VM, PostgreSQL on
 * loopback TCP) each write to the socket cost the node ≈100 µs, and a group commit issued
 * ten statements one after the other, each waiting for the previous answer; now `BEGIN` goes
 * with the first statements, reads issued together share a write, and the writes whose answer
 * nobody needs (`track`) go with `COMMIT`. Order is PostgreSQL's order of arrival, which is
 * the order of `query` calls, so a read sees every write issued before it.
 */
export class PipelinedTx {
  readonly #client: pg.PoolClient
  #queued: Queued[] = []
  #scheduled = false
  readonly #tracked: Promise<unknown>[] = []
  #failure: unknown

  constructor(client: pg.PoolClient) {
    this.#client = client
  }

  /** Queues a statement; it is sent with the others of this turn of the event loop. */
  query(text: string | pg.QueryConfig): Promise<pg.QueryResult> {
    const config: pg.QueryConfig = typeof text === 'string' ? { text } : text
    return new Promise((resolve, reject) => {
      this.#queued.push({ config, resolve, reject })
      if (this.#scheduled) return
      this.#scheduled = true
      setImmediate(() => this.#flush())
    })
  }

  /**
   * Sends what is queued now instead of at the end of this turn: for a caller with work to do
   * while PostgreSQL answers.
   */
  send(): void {
    if (this.#queued.length > 0) this.#flush()
  }

  #flush(): void {
    this.#scheduled = false
    const batch = this.#queued
    if (batch.length === 0) return
    this.#queued = []
    const socket = socketOf(this.#client)
    socket?.cork()
    try {
      for (const q of batch) this.#client.query(q.config).then(q.resolve, q.reject)
    } finally {
      socket?.uncork()
    }
  }

  /**
   * A write whose answer nobody waits for: it travels with the next statements, and its
   * failure fails the commit (the transaction is aborted then, so nothing of it is kept).
   */
  track(write: Promise<unknown>): void {
    this.#tracked.push(
      write.catch((err: unknown) => {
        this.#failure ??= err
      }),
    )
  }

  /** Waits for every tracked write; the first failure is thrown. */
  async settled(): Promise<void> {
    const failure = await this.cause(undefined)
    if (failure !== undefined) throw failure
  }

  /**
   * The error to report for `err`: a statement after a failed tracked write fails with
   * "current transaction is aborted" (25P02), so the tracked write's own error, which a retry
   * may be decided on (a deadlock, a serialization failure), is the cause.
   */
  async cause(err: unknown): Promise<unknown> {
    await Promise.all(this.#tracked)
    return this.#failure ?? err
  }
}
