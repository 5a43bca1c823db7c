import type Database from 'better-sqlite3'
import { TRIGGER_COLUMNS, type TriggerRow, toPendingAlert } from '../rows/alerts.ts'
import type { AlertOutboxStore } from '../types.ts'

/** The alert decision outbox on SQLite (`alert_triggers`, migration 010). */
export function sqliteAlertOutbox(db: Database.Database): AlertOutboxStore {
  const claim = db.prepare<[string, number, number, number], TriggerRow>(
    `UPDATE alert_triggers SET claimed_by = ?, lease_until = ?
     WHERE id IN (SELECT id FROM alert_triggers WHERE lease_until IS NULL OR lease_until <= ?
                  ORDER BY id LIMIT ?)
     RETURNING ${TRIGGER_COLUMNS}`,
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
