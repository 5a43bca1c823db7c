import type pg from 'pg'
import { TRIGGER_COLUMNS, type TriggerRow, toPendingAlert } from '../rows/alerts.ts'
import type { AlertOutboxStore } from '../types.ts'
import { all, run } from './db.ts'

/**
 * The alert decision outbox on PostgreSQL: a claim picks rows `FOR UPDATE SKIP LOCKED`, so
 * nodes claiming at once never lease one decision twice and never wait on each other.
 */
export function pgAlertOutbox(pool: pg.Pool): AlertOutboxStore {
  return {
    claimAlertDecisions: async (workerId, now, leaseMs, limit) => {
      const rows = await all<TriggerRow>(
        pool,
        `UPDATE alert_triggers SET claimed_by = $1, lease_until = $2
         WHERE id IN (SELECT id FROM alert_triggers WHERE lease_until IS NULL OR lease_until <= $3
                      ORDER BY id LIMIT $4 FOR UPDATE SKIP LOCKED)
         RETURNING ${TRIGGER_COLUMNS}`,
        [workerId, now + leaseMs, now, limit],
      )
      return rows.map(toPendingAlert)
    },
    finishAlertDecision: async (id) => {
      await run(pool, 'DELETE FROM alert_triggers WHERE id = $1', [id])
    },
  }
}
