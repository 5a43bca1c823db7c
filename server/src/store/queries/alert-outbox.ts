import type { AlertOutboxStore } from '../alert-store.ts'
import { TRIGGER_COLUMNS, type TriggerRow, toPendingAlert } from '../rows/alerts.ts'
import type { SqlPort } from '../sql/port.ts'
import { raw, sql } from '../sql/statement.ts'

/**
 * The alert decision outbox (`alert_triggers`), written once. On PostgreSQL a claim picks rows
 * `FOR UPDATE SKIP LOCKED`, so nodes claiming at once never lease one decision twice and never
 * wait on each other; SQLite's one writer needs no such clause.
 */
export function alertOutboxQueries(db: SqlPort): AlertOutboxStore {
  const skipLocked = raw(db.dialect === 'postgres' ? 'FOR UPDATE SKIP LOCKED' : '')
  return {
    claimAlertDecisions: async (workerId, now, leaseMs, limit) =>
      (
        await db.all<TriggerRow>(
          sql`UPDATE alert_triggers SET claimed_by = ${workerId}, lease_until = ${now + leaseMs}
              WHERE id IN (SELECT id FROM alert_triggers
                           WHERE lease_until IS NULL OR lease_until <= ${now}
                           ORDER BY id LIMIT ${limit} ${skipLocked})
              RETURNING ${raw(TRIGGER_COLUMNS)}`,
        )
      ).map(toPendingAlert),
    finishAlertDecision: async (id) => {
      await db.run(sql`DELETE FROM alert_triggers WHERE id = ${id}`)
    },
  }
}
