import type pg from 'pg'
import { type DeliveryRow, type RuleRow, toDelivery, toRule } from '../rows/alerts.ts'
import type { AlertDelivery, AlertStore } from '../types.ts'
import { all, first, named, run, transaction } from './db.ts'

/** Longest error text kept in the delivery log. */
const MAX_ERROR = 1000
/** How long a project's rule list is reused: rules are read for every stored event. */
const RULES_TTL_MS = 1000
const WITH_RULE_NAME = '*, (SELECT name FROM alert_rules r WHERE r.id = rule_id) AS rule_name'

/**
 * Alert rules and the delivery outbox on PostgreSQL. A claim is one `UPDATE … RETURNING` over
 * rows picked `FOR UPDATE SKIP LOCKED`, so nodes claiming at once never lease one delivery twice
 * and never wait on each other.
 */
export function pgAlerts(pool: pg.Pool): AlertStore {
  const rulesCache = new Map<number, { rows: RuleRow[]; at: number }>()
  const rowsOf = async (projectId: number): Promise<RuleRow[]> => {
    const hit = rulesCache.get(projectId)
    const now = Date.now()
    if (hit !== undefined && now - hit.at < RULES_TTL_MS) return hit.rows
    const rows = await all<RuleRow>(
      pool,
      'SELECT * FROM alert_rules WHERE project_id = $1 AND deleted_at IS NULL ORDER BY id',
      [projectId],
    )
    if (rulesCache.size > 10_000) rulesCache.clear()
    rulesCache.set(projectId, { rows, at: now })
    return rows
  }
  return {
    createAlertRule: async (projectId, rule, now) => {
      rulesCache.delete(projectId)
      const r = await first<RuleRow>(
        pool,
        `INSERT INTO alert_rules (project_id, name, conditions, channel, created_at)
         VALUES ($1, $2, $3, $4, $5) RETURNING *`,
        [projectId, rule.name, JSON.stringify(rule.conditions), JSON.stringify(rule.channel), now],
      )
      if (r === undefined) throw new Error('alert rule insert returned nothing')
      return toRule(r)
    },
    listAlertRules: async (projectId) => (await rowsOf(projectId)).map(toRule),
    deleteAlertRule: async (projectId, ruleId, now) => {
      rulesCache.delete(projectId)
      return transaction(pool, async (c) => {
        const n = await run(
          c,
          'UPDATE alert_rules SET deleted_at = $1 WHERE project_id = $2 AND id = $3 AND deleted_at IS NULL',
          [now, projectId, ruleId],
        )
        if (n === 0) return false
        await run(
          c,
          `UPDATE alert_deliveries SET status = 'failed', last_error = 'rule deleted', updated_at = $1
           WHERE rule_id = $2 AND status = 'pending'`,
          [now, ruleId],
        )
        return true
      })
    },
    countIssueEvents: async (issueId, since, cap) =>
      (
        await first<{ n: number }>(
          pool,
          'SELECT COUNT(*) AS n FROM (SELECT 1 FROM events WHERE issue_id = $1 AND received >= $2 LIMIT $3) capped',
          [issueId, since, cap],
        )
      )?.n ?? 0,
    lastDeliveryAt: async (ruleId, issueId, kind) =>
      (
        await first<{ at: number | null }>(
          pool,
          `SELECT MAX(created_at) AS at FROM alert_deliveries
           WHERE rule_id = $1 AND issue_id = $2 AND trigger_kind = $3`,
          [ruleId, issueId, kind],
        )
      )?.at ?? null,
    enqueueDeliveries: (rows) =>
      transaction(pool, async (c) => {
        const created: AlertDelivery[] = []
        for (const d of rows) {
          const r = await first<DeliveryRow>(
            c,
            ...named(
              `INSERT INTO alert_deliveries (rule_id, project_id, issue_id, trigger_kind, trigger_id,
                 event_id, channel, message, next_attempt_at, created_at, updated_at)
               VALUES (@ruleId, @projectId, @issueId, @triggerKind, @triggerId, @eventId, @channel,
                 @message, @at, @at, @at)
               ON CONFLICT (rule_id, issue_id, trigger_kind, trigger_id) DO NOTHING
               RETURNING ${WITH_RULE_NAME}`,
              { ...d, channel: JSON.stringify(d.channel) },
            ),
          )
          if (r !== undefined) created.push(toDelivery(r))
        }
        return created
      }),
    claimDeliveries: async (workerId, now, leaseMs, limit) =>
      (
        await all<DeliveryRow>(
          pool,
          ...named(
            `UPDATE alert_deliveries SET claimed_by = @worker, lease_until = @leaseUntil, updated_at = @now
             WHERE id IN (
               SELECT id FROM alert_deliveries
               WHERE status = 'pending' AND next_attempt_at <= @now
                 AND (lease_until IS NULL OR lease_until <= @now)
               ORDER BY next_attempt_at, id LIMIT @limit FOR UPDATE SKIP LOCKED)
             RETURNING ${WITH_RULE_NAME}`,
            { worker: workerId, leaseUntil: now + leaseMs, now, limit },
          ),
        )
      )
        .sort((a, b) => a.next_attempt_at - b.next_attempt_at || a.id - b.id)
        .map(toDelivery),
    finishAttempt: async (id, workerId, result) => {
      if (result.ok)
        return (
          (await run(
            pool,
            `UPDATE alert_deliveries SET status = 'sent', attempts = attempts + 1, sent_at = $1,
               updated_at = $1, claimed_by = NULL, lease_until = NULL
             WHERE id = $2 AND claimed_by = $3`,
            [result.at, id, workerId],
          )) > 0
        )
      const error = result.error.slice(0, MAX_ERROR)
      return (
        (await run(
          pool,
          ...named(
            `UPDATE alert_deliveries SET status = CASE WHEN @retryAt::bigint IS NULL THEN 'failed' ELSE 'pending' END,
               attempts = attempts + 1, last_error = @error,
               next_attempt_at = COALESCE(@retryAt::bigint, next_attempt_at), updated_at = @now,
               claimed_by = NULL, lease_until = NULL
             WHERE id = @id AND claimed_by = @worker AND status = 'pending'`,
            { retryAt: result.retryAt, error, now: result.at, id, worker: workerId },
          ),
        )) > 0
      )
    },
    releaseDelivery: async (id, workerId) => {
      await run(
        pool,
        'UPDATE alert_deliveries SET claimed_by = NULL, lease_until = NULL WHERE id = $1 AND claimed_by = $2',
        [id, workerId],
      )
    },
    listDeliveries: async (projectId, filter, page) => {
      const args: unknown[] = [projectId]
      const p = (v: unknown): string => {
        args.push(v)
        return `$${args.length}`
      }
      const where = ['d.project_id = $1']
      if (filter.status !== undefined) where.push(`d.status = ${p(filter.status)}`)
      if (filter.issueId !== undefined) where.push(`d.issue_id = ${p(filter.issueId)}`)
      const before = page.cursor === undefined ? Number.NaN : Number(page.cursor)
      if (Number.isSafeInteger(before)) where.push(`d.id < ${p(before)}`)
      const rows = await all<DeliveryRow>(
        pool,
        `SELECT d.*, r.name AS rule_name FROM alert_deliveries d
         JOIN alert_rules r ON r.id = d.rule_id
         WHERE ${where.join(' AND ')} ORDER BY d.id DESC LIMIT ${p(page.limit + 1)}`,
        args,
      )
      const deliveries = rows.slice(0, page.limit).map(toDelivery)
      const last = deliveries[deliveries.length - 1]
      return rows.length > page.limit && last !== undefined
        ? { deliveries, next: String(last.id) }
        : { deliveries }
    },
  }
}
