import type Database from 'better-sqlite3'
import type { Quota, QuotaStore } from '../types.ts'

/** Event quotas and the stored-event probe on SQLite. */
export function sqliteQuotas(db: Database.Database): QuotaStore {
  const one = db.prepare<[number], { events: number; window_seconds: number }>(
    'SELECT events, window_seconds FROM project_quotas WHERE project_id = ?',
  )
  const upsert = db.prepare<[number, number, number]>(
    `INSERT INTO project_quotas (project_id, events, window_seconds) VALUES (?, ?, ?)
     ON CONFLICT (project_id) DO UPDATE SET events = excluded.events, window_seconds = excluded.window_seconds`,
  )
  const remove = db.prepare<[number]>('DELETE FROM project_quotas WHERE project_id = ?')
  // One read through the (project_id, event_id) unique index for the whole list.
  const existing = db.prepare<[number, string], { event_id: string }>(
    'SELECT event_id FROM events WHERE project_id = ? AND event_id IN (SELECT value FROM json_each(?))',
  )
  return {
    getQuota: async (projectId): Promise<Quota | null> => {
      const r = one.get(projectId)
      return r === undefined ? null : { events: r.events, windowSeconds: r.window_seconds }
    },
    setQuota: async (projectId, quota) => {
      if (quota === null) remove.run(projectId)
      else upsert.run(projectId, quota.events, quota.windowSeconds)
    },
    existingEventIds: async (projectId, eventIds) => {
      if (eventIds.length === 0) return new Set()
      const rows = existing.all(projectId, JSON.stringify(eventIds))
      return new Set(rows.map((r) => r.event_id))
    },
  }
}
