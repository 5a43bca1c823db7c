/**
 * Hands out turns per key in the order groups ask for them: a group waits (before it takes a
 * pooled connection, so waiting never holds one) until every earlier group of this node that
 * shares a key has taken its database locks. PostgreSQL grants advisory locks in the order the
 * statements arrive, and two groups' statements can overtake each other on their way there (one
 * group's connection still being opened while a later group finds an idle one): measured, 1 in
 * about 30 conformance check-in cells still saw the `ok` of a run land before its
 * `in_progress`, which creates the monitor. Turns keep a node's check-ins of one monitor in
 * arrival order; nodes have no order between them to keep.
 */
export class LockTurns {
  readonly #last = new Map<string, Promise<void>>()

  /**
   * Queues a group for `keys`; resolves once its turn has come, with `taken`, to call as soon
   * as its locks are held (or it failed): later groups of these keys may then go.
   */
  async enter(keys: readonly string[]): Promise<() => void> {
    if (keys.length === 0) return () => undefined
    let taken: () => void = () => undefined
    const mine = new Promise<void>((resolve) => {
      taken = resolve
    })
    const before = keys.map((k) => this.#last.get(k) ?? Promise.resolve())
    for (const k of keys) this.#last.set(k, mine)
    void mine.then(() => {
      for (const k of keys) if (this.#last.get(k) === mine) this.#last.delete(k)
    })
    await Promise.all(before)
    return taken
  }
}
