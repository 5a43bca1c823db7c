import type pg from 'pg'
import type { Quota, QuotaStore } from '../types.ts'
import { all, first, run } from './db.ts'

/** Event quotas and the stored-event probe on PostgreSQL. */
export function pgQuotas(pool: pg.Pool): QuotaStore {
  return {
    getQuota: async (projectId): Promise<Quota | null> => {
      const r = await first<{ events: number; window_seconds: number }>(
        pool,
        'SELECT events, window_seconds FROM project_quotas WHERE project_id = $1',
        [projectId],
      )
      return r === undefined ? null : { events: r.events, windowSeconds: r.window_seconds }
    },
    setQuota: async (projectId, quota) => {
      if (quota === null)
        await run(pool, 'DELETE FROM project_quotas WHERE project_id = $1', [projectId])
      else
        await run(
          pool,
          `INSERT INTO project_quotas (project_id, events, window_seconds) VALUES ($1, $2, $3)
           ON CONFLICT (project_id) DO UPDATE SET events = excluded.events, window_seconds = excluded.window_seconds`,
          [projectId, quota.events, quota.windowSeconds],
        )
    },
    // One read through the (project_id, event_id) primary key of event_ids.
    existingEventIds: async (projectId, eventIds) => {
      if (eventIds.length === 0) return new Set()
      const rows = await all<{ event_id: string }>(
        pool,
        'SELECT event_id FROM event_ids WHERE project_id = $1 AND event_id = ANY($2::text[])',
        [projectId, eventIds],
      )
      return new Set(rows.map((r) => r.event_id))
    },
  }
}
