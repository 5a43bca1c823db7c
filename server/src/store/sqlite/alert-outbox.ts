import type Database from 'better-sqlite3'
import type { AlertOutboxStore, AlertTriggerKind, PendingAlert } from '../types.ts'

interface TriggerRow {
  id: number
  rule_id: number
  project_id: number
  issue_id: number
  trigger_kind: AlertTriggerKind
  trigger_id: string
  event_id: string
}

/** Maps an `alert_triggers` row. */
export const toPendingAlert = (r: TriggerRow): PendingAlert => ({
  id: r.id,
  ruleId: r.rule_id,
  projectId: r.project_id,
  issueId: r.issue_id,
  kind: r.trigger_kind,
  triggerId: r.trigger_id,
  eventId: r.event_id,
})

/** The alert decision outbox on SQLite (`alert_triggers`, migration 010). */
export function sqliteAlertOutbox(db: Database.Database): AlertOutboxStore {
  const claim = db.prepare<[string, number, number, number], TriggerRow>(
    `UPDATE alert_triggers SET claimed_by = ?, lease_until = ?
     WHERE id IN (SELECT id FROM alert_triggers WHERE lease_until IS NULL OR lease_until <= ?
                  ORDER BY id LIMIT ?)
     RETURNING id, rule_id, project_id, issue_id, trigger_kind, trigger_id, event_id`,
  )
  const remove = db.prepare<[number]>('DELETE FROM alert_triggers WHERE id = ?')
  return {
    claimAlertDecisions: async (workerId, now, leaseMs, limit) =>
      claim.all(workerId, now + leaseMs, now, limit).map(toPendingAlert),
    finishAlertDecision: async (id) => {
      remove.run(id)
    },
  }
}
