import type { LiveStore } from '../store/types.ts'
import type { LiveBus } from './bus.ts'
import { FeedCore, type LiveFeed, type LiveNotice, type Stored } from './feed.ts'

/** Groups announcements by project, keeping their order inside each project. */
export function byProject(batch: readonly Stored[]): Map<number, Stored[]> {
  const out = new Map<number, Stored[]>()
  for (const e of batch) {
    const list = out.get(e.projectId)
    if (list === undefined) out.set(e.projectId, [e])
    else list.push(e)
  }
  return out
}

/**
 * The feed of a single node (SQLite: one writer, one process): announcements from the bus get
 * their row ids with one indexed read per project and batch, and only while a stream is open,
 * so ingest pays nothing when no page is watching.
 */
export function localFeed(bus: LiveBus, store: LiveStore, warn: (err: unknown) => void): LiveFeed {
  const core: FeedCore = new FeedCore(
    bus,
    async (batch) => {
      try {
        const notices: LiveNotice[] = []
        for (const [projectId, list] of byProject(batch)) {
          const rows = await store.liveEventIds(
            projectId,
            list.map((e) => e.eventId),
          )
          const ids = new Map(rows.map((r) => [r.eventId, r.id]))
          for (const e of list) {
            const id = ids.get(e.eventId)
            if (id !== undefined) notices.push({ ...e, id })
          }
        }
        notices.sort((a, b) => a.id - b.id)
        for (const n of notices) core.emit(n)
      } catch (err) {
        warn(err)
        core.gap()
      }
    },
    () => core.watched(),
  )
  return {
    subscribe: (s) => core.subscribe(s),
    close: () => core.drain(),
  }
}
