import type { PrivacyStore } from './privacy-types.ts'
import type { ProjectStore } from './project-store.ts'
import type { QuotaStore } from './quota-store.ts'

/** What changed: the caches that hold it must drop it (`all`: every cache, notices were missed). */
// Alert rules have no topic: the ingest transaction reads them uncached, and the alert worker's
// one-second cache (queries/alerts.ts) is within the two seconds a change may take anyway.
export type ChangeTopic = 'keys' | 'projects' | 'quotas' | 'all'

/** One change notice. */
export interface Change {
  topic: ChangeTopic
  projectId?: number
}

/**
 * Tells every node of a deployment that configuration its caches hold changed, so a revoked
 * key, a changed quota, rule or project is in force everywhere within moments instead of a
 * cache lifetime. SQLite (one process) calls back in-process; PostgreSQL carries notices over
 * LISTEN/NOTIFY (postgres/change-feed.ts) and reports `all` after a reconnect.
 */
export interface ChangeFeed {
  /** Subscribes to notices of every node, this one included; returns the unsubscribe. */
  onChange(cb: (c: Change) => void): () => void
  /** Announces a change that has committed. */
  publish(c: Change): Promise<void>
  close(): Promise<void>
}

/** The in-process feed: callbacks run at once (SQLite, and each node's own notices). */
export class LocalChangeFeed implements ChangeFeed {
  readonly #subscribers = new Set<(c: Change) => void>()

  onChange(cb: (c: Change) => void): () => void {
    this.#subscribers.add(cb)
    return () => this.#subscribers.delete(cb)
  }

  /** Calls every subscriber; one that throws does not keep the others from running. */
  emit(c: Change): void {
    for (const cb of this.#subscribers) {
      try {
        cb(c)
      } catch {
        // A cache that failed to drop an entry still expires it by its own time limit.
      }
    }
  }

  async publish(c: Change): Promise<void> {
    this.emit(c)
  }

  async close(): Promise<void> {
    this.#subscribers.clear()
  }
}

/** The store methods that change what nodes cache, and the notice each one publishes. */
type Announced = Pick<ProjectStore, 'createProject' | 'createKey' | 'revokeKey'> &
  Pick<QuotaStore, 'setQuota'> &
  Pick<PrivacyStore, 'setPrivacySettings'>

/**
 * Wraps the store's configuration writes so each announces itself on `feed` after it
 * committed, whichever code path (API, UI, CLI) made it: callers cannot forget to.
 */
export function announceChanges<S extends Announced>(store: S, feed: ChangeFeed): Announced {
  const after = async <T>(p: Promise<T>, c: Change): Promise<T> => {
    const r = await p
    // The change has committed: a notice that cannot be sent must not turn it into an error.
    // Caches then drop it by their own time limit (30 s at most), as before the feed.
    await feed.publish(c).catch(() => undefined)
    return r
  }
  return {
    createProject: (...a) => after(store.createProject(...a), { topic: 'projects' }),
    createKey: (...a) => after(store.createKey(...a), { topic: 'keys', projectId: a[0] }),
    revokeKey: (...a) => after(store.revokeKey(...a), { topic: 'keys', projectId: a[0] }),
    setQuota: (...a) => after(store.setQuota(...a), { topic: 'quotas', projectId: a[0] }),
    setPrivacySettings: (...a) =>
      after(store.setPrivacySettings(...a), { topic: 'projects', projectId: a[0] }),
  }
}
