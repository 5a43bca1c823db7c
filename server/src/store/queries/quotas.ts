import type { Quota } from '../model.ts'
import type { QuotaStore } from '../quota-store.ts'
import { inList } from '../sql/in-list.ts'
import type { SqlPort } from '../sql/port.ts'
import { raw, sql } from '../sql/statement.ts'

/** Event quotas and the stored-event probe, written once. */
export function quotaQueries(db: SqlPort): QuotaStore {
  // One read through a unique (project_id, event_id) index: SQLite's events table has one;
  // PostgreSQL's partitioned events cannot, so its event_ids table holds the key.
  const idTable = raw(db.dialect === 'sqlite' ? 'events' : 'event_ids')
  return {
    getQuota: async (projectId): Promise<Quota | null> => {
      const r = await db.first<{ events: number; window_seconds: number }>(
        sql`SELECT events, window_seconds FROM project_quotas WHERE project_id = ${projectId}`,
      )
      return r === undefined ? null : { events: r.events, windowSeconds: r.window_seconds }
    },
    setQuota: async (projectId, quota) => {
      await db.run(
        quota === null
          ? sql`DELETE FROM project_quotas WHERE project_id = ${projectId}`
          : sql`INSERT INTO project_quotas (project_id, events, window_seconds)
                VALUES (${projectId}, ${quota.events}, ${quota.windowSeconds})
                ON CONFLICT (project_id) DO UPDATE SET events = excluded.events,
                  window_seconds = excluded.window_seconds`,
      )
    },
    existingEventIds: async (projectId, eventIds) => {
      if (eventIds.length === 0) return new Set()
      const rows = await db.all<{ event_id: string }>(
        sql`SELECT event_id FROM ${idTable}
            WHERE project_id = ${projectId} AND ${inList(db.dialect, 'event_id', eventIds, 'text')}`,
      )
      return new Set(rows.map((r) => r.event_id))
    },
  }
}
