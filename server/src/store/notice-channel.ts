/** What a subscriber of a notice channel is told. */
export interface NoticeHandler {
  /** A notice's payload, as any session with access may have sent it: check it. */
  notice(payload: string | undefined): void
  /** The connection was lost and is back: notices sent meanwhile were not delivered. */
  reconnected(): void
}

/**
 * Notices between the nodes of one database (PostgreSQL's LISTEN/NOTIFY), over one listening
 * connection per node that every feed shares (postgres/listener.ts): the configuration change
 * feed and the live feed. A SQLite store is one node and has none.
 */
export interface NoticeChannel {
  /** Subscribes to `channel` (listened to from its first subscriber on); returns the unsubscribe. */
  listen(channel: string, handler: NoticeHandler): Promise<() => void>
  /**
   * Runs a statement that sends notices (`pg_notify`) on the listening connection; throws while
   * that connection is down, so the sender keeps what it could not send for the reconnect.
   */
  notify(sql: string, values: readonly unknown[]): Promise<void>
  /** Whether the listening connection is up now. */
  connected(): boolean
  /** Reconnects so far and whether it is connected now, for `/metrics`. */
  stats(): { reconnects: number; connected: boolean }
}
