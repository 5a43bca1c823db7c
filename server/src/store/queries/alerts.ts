import { LRUCache } from 'lru-cache'
import type { AlertDelivery, AlertStore, NewDelivery } from '../alert-store.ts'
import { type DeliveryRow, type RuleRow, toDelivery, toRule } from '../rows/alerts.ts'
import { type SqlPort, type Steps, step } from '../sql/port.ts'
import { join, raw, type Statement, sql } from '../sql/statement.ts'

/** Longest error text kept in the delivery log. */
const MAX_ERROR = 1000

/**
 * How long a project's rule list is reused. The alert worker reads the list once for every
 * decision it delivers (alerts/triggers.ts); the ingest transaction reads rules itself,
 * uncached, so a rule takes effect on the next stored event whatever this cache holds.
 */
const RULES_TTL_MS = 1000
/** Projects whose rule list is kept at once; the least recently read go first. */
const RULES_CACHED = 10_000

const WITH_RULE_NAME = raw('*, (SELECT name FROM alert_rules r WHERE r.id = rule_id) AS rule_name')

/**
 * Alert rules and the delivery outbox, written once. A claim is one `UPDATE … RETURNING`, so
 * two nodes never lease one delivery twice; on PostgreSQL its rows are picked
 * `FOR UPDATE SKIP LOCKED`, so nodes claiming at once never wait on each other either.
 */
export function alertQueries(db: SqlPort): AlertStore {
  const skipLocked = raw(db.dialect === 'postgres' ? 'FOR UPDATE SKIP LOCKED' : '')
  // Rule lists per project, dropped when this store changes a rule; another node's change is
  // seen within RULES_TTL_MS.
  const rulesCache = new LRUCache<number, RuleRow[]>({ max: RULES_CACHED, ttl: RULES_TTL_MS })
  const rowsOf = async (projectId: number): Promise<RuleRow[]> => {
    const hit = rulesCache.get(projectId)
    if (hit !== undefined) return hit
    const rows = await db.all<RuleRow>(
      sql`SELECT * FROM alert_rules WHERE project_id = ${projectId} AND deleted_at IS NULL ORDER BY id`,
    )
    rulesCache.set(projectId, rows)
    return rows
  }
  function* removeRule(projectId: number, ruleId: number, now: number): Steps<boolean> {
    const n = yield* step.run(
      sql`UPDATE alert_rules SET deleted_at = ${now}
          WHERE project_id = ${projectId} AND id = ${ruleId} AND deleted_at IS NULL`,
    )
    if (n === 0) return false
    yield* step.run(
      sql`UPDATE alert_deliveries SET status = 'failed', last_error = 'rule deleted', updated_at = ${now}
          WHERE rule_id = ${ruleId} AND status = 'pending'`,
    )
    return true
  }
  function* enqueue(rows: readonly NewDelivery[]): Steps<AlertDelivery[]> {
    const created: AlertDelivery[] = []
    for (const d of rows) {
      const r = yield* step.first<DeliveryRow>(
        sql`INSERT INTO alert_deliveries (rule_id, project_id, issue_id, trigger_kind, trigger_id,
              event_id, channel, message, next_attempt_at, created_at, updated_at)
            VALUES (${d.ruleId}, ${d.projectId}, ${d.issueId}, ${d.triggerKind}, ${d.triggerId},
              ${d.eventId}, ${JSON.stringify(d.channel)}, ${d.message}, ${d.at}, ${d.at}, ${d.at})
            ON CONFLICT (rule_id, issue_id, trigger_kind, trigger_id) DO NOTHING
            RETURNING ${WITH_RULE_NAME}`,
      )
      if (r !== undefined) created.push(toDelivery(r))
    }
    return created
  }
  const due = (now: number) =>
    sql`status = 'pending' AND next_attempt_at <= ${now} AND (lease_until IS NULL OR lease_until <= ${now})`
  return {
    createAlertRule: async (projectId, rule, now) => {
      rulesCache.delete(projectId)
      const r = await db.first<RuleRow>(
        sql`INSERT INTO alert_rules (project_id, name, conditions, channel, created_at)
            VALUES (${projectId}, ${rule.name}, ${JSON.stringify(rule.conditions)},
              ${JSON.stringify(rule.channel)}, ${now})
            RETURNING *`,
      )
      if (r === undefined) throw new Error('alert rule insert returned nothing')
      return toRule(r)
    },
    listAlertRules: async (projectId) => (await rowsOf(projectId)).map(toRule),
    deleteAlertRule: async (projectId, ruleId, now) => {
      rulesCache.delete(projectId)
      return db.transaction(() => removeRule(projectId, ruleId, now))
    },
    countIssueEvents: async (issueId, since, cap) =>
      (
        await db.first<{ n: number }>(
          sql`SELECT COUNT(*) AS n FROM (SELECT 1 FROM events
                WHERE issue_id = ${issueId} AND received >= ${since} LIMIT ${cap}) AS capped`,
        )
      )?.n ?? 0,
    lastDeliveryAt: async (ruleId, issueId, kind) =>
      (
        await db.first<{ at: number | null }>(
          sql`SELECT MAX(created_at) AS at FROM alert_deliveries
              WHERE rule_id = ${ruleId} AND issue_id = ${issueId} AND trigger_kind = ${kind}`,
        )
      )?.at ?? null,
    enqueueDeliveries: (rows) => db.transaction(() => enqueue(rows)),
    claimDeliveries: async (workerId, now, leaseMs, limit) => {
      // SQLite: a read first, so an idle poll takes no write lock from the ingest writer thread
      // (PostgreSQL's row locks make the UPDATE alone as cheap).
      if (
        db.dialect === 'sqlite' &&
        (await db.first(sql`SELECT 1 AS one FROM alert_deliveries WHERE ${due(now)} LIMIT 1`)) ===
          undefined
      )
        return []
      const rows = await db.all<DeliveryRow>(
        sql`UPDATE alert_deliveries SET claimed_by = ${workerId}, lease_until = ${now + leaseMs},
              updated_at = ${now}
            WHERE id IN (SELECT id FROM alert_deliveries WHERE ${due(now)}
                         ORDER BY next_attempt_at, id LIMIT ${limit} ${skipLocked})
            RETURNING ${WITH_RULE_NAME}`,
      )
      return rows
        .sort((a, b) => a.next_attempt_at - b.next_attempt_at || a.id - b.id)
        .map(toDelivery)
    },
    finishAttempt: async (id, workerId, result) => {
      if (result.ok)
        return (
          (await db.run(
            sql`UPDATE alert_deliveries SET status = 'sent', attempts = attempts + 1,
                  sent_at = ${result.at}, updated_at = ${result.at}, claimed_by = NULL, lease_until = NULL
                WHERE id = ${id} AND claimed_by = ${workerId}`,
          )) > 0
        )
      const error = result.error.slice(0, MAX_ERROR)
      // CAST: PostgreSQL must know the type of a parameter that is only compared with NULL.
      const retryAt = sql`CAST(${result.retryAt} AS BIGINT)`
      return (
        (await db.run(
          sql`UPDATE alert_deliveries
              SET status = CASE WHEN ${retryAt} IS NULL THEN 'failed' ELSE 'pending' END,
                attempts = attempts + 1, last_error = ${error},
                next_attempt_at = COALESCE(${retryAt}, next_attempt_at), updated_at = ${result.at},
                claimed_by = NULL, lease_until = NULL
              WHERE id = ${id} AND claimed_by = ${workerId} AND status = 'pending'`,
        )) > 0
      )
    },
    releaseDelivery: async (id, workerId) => {
      await db.run(
        sql`UPDATE alert_deliveries SET claimed_by = NULL, lease_until = NULL
            WHERE id = ${id} AND claimed_by = ${workerId}`,
      )
    },
    listDeliveries: async (projectId, filter, page) => {
      const where: Statement[] = [sql`d.project_id = ${projectId}`]
      if (filter.status !== undefined) where.push(sql`d.status = ${filter.status}`)
      if (filter.issueId !== undefined) where.push(sql`d.issue_id = ${filter.issueId}`)
      const before = page.cursor === undefined ? Number.NaN : Number(page.cursor)
      if (Number.isSafeInteger(before)) where.push(sql`d.id < ${before}`)
      const rows = await db.all<DeliveryRow>(
        sql`SELECT d.*, r.name AS rule_name FROM alert_deliveries d
            JOIN alert_rules r ON r.id = d.rule_id
            WHERE ${join(where, ' AND ')} ORDER BY d.id DESC LIMIT ${page.limit + 1}`,
      )
      const deliveries = rows.slice(0, page.limit).map(toDelivery)
      const last = deliveries[deliveries.length - 1]
      return rows.length > page.limit && last !== undefined
        ? { deliveries, next: String(last.id) }
        : { deliveries }
    },
  }
}
