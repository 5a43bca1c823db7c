import type pg from 'pg'
import type { AlertOutboxStore, AlertTriggerKind } from '../types.ts'
import { all, run } from './db.ts'

/**
 * The alert decision outbox on PostgreSQL: a claim picks rows `FOR UPDATE SKIP LOCKED`, so
 * nodes claiming at once never lease one decision twice and never wait on each other.
 */
export function pgAlertOutbox(pool: pg.Pool): AlertOutboxStore {
  return {
    claimAlertDecisions: async (workerId, now, leaseMs, limit) => {
      const rows = await all<{
        id: number
        rule_id: number
        project_id: number
        issue_id: number
        trigger_kind: AlertTriggerKind
        trigger_id: string
        event_id: string
      }>(
        pool,
        `UPDATE alert_triggers SET claimed_by = $1, lease_until = $2
         WHERE id IN (SELECT id FROM alert_triggers WHERE lease_until IS NULL OR lease_until <= $3
                      ORDER BY id LIMIT $4 FOR UPDATE SKIP LOCKED)
         RETURNING id, rule_id, project_id, issue_id, trigger_kind, trigger_id, event_id`,
        [workerId, now + leaseMs, now, limit],
      )
      return rows.map((r) => ({
        id: r.id,
        ruleId: r.rule_id,
        projectId: r.project_id,
        issueId: r.issue_id,
        kind: r.trigger_kind,
        triggerId: r.trigger_id,
        eventId: r.event_id,
      }))
    },
    finishAlertDecision: async (id) => {
      await run(pool, 'DELETE FROM alert_triggers WHERE id = $1', [id])
    },
  }
}
