import type Database from 'better-sqlite3'
import { type DeliveryRow, type RuleRow, toDelivery, toRule } from '../rows/alerts.ts'
import type { AlertDelivery, AlertStore, NewDelivery } from '../types.ts'

/** Longest error text kept in the delivery log. */
const MAX_ERROR = 1000

/** How long a project's rule list is reused: rules are read for every stored event. */
const RULES_TTL_MS = 1000

/**
 * Alert rules and the delivery outbox on SQLite. Claims are one `UPDATE … RETURNING`
 * statement, so two nodes on one database never lease the same delivery.
 */
export function sqliteAlerts(db: Database.Database): AlertStore {
  const insertRule = db.prepare<[number, string, string, string, number], RuleRow>(
    `INSERT INTO alert_rules (project_id, name, conditions, channel, created_at)
     VALUES (?, ?, ?, ?, ?) RETURNING *`,
  )
  const rulesOf = db.prepare<[number], RuleRow>(
    'SELECT * FROM alert_rules WHERE project_id = ? AND deleted_at IS NULL ORDER BY id',
  )
  const deleteRule = db.prepare<[number, number, number]>(
    'UPDATE alert_rules SET deleted_at = ? WHERE project_id = ? AND id = ? AND deleted_at IS NULL',
  )
  const cancelPending = db.prepare<[number, number]>(
    `UPDATE alert_deliveries SET status = 'failed', last_error = 'rule deleted', updated_at = ?
     WHERE rule_id = ? AND status = 'pending'`,
  )
  const countEvents = db.prepare<[number, number, number], { n: number }>(
    `SELECT COUNT(*) AS n FROM (SELECT 1 FROM events WHERE issue_id = ? AND received >= ? LIMIT ?)`,
  )
  const lastDelivery = db.prepare<[number, number, string], { at: number | null }>(
    `SELECT MAX(created_at) AS at FROM alert_deliveries
     WHERE rule_id = ? AND issue_id = ? AND trigger_kind = ?`,
  )
  const insertDelivery = db.prepare(
    `INSERT INTO alert_deliveries (rule_id, project_id, issue_id, trigger_kind, trigger_id,
       event_id, channel, message, next_attempt_at, created_at, updated_at)
     VALUES (@ruleId, @projectId, @issueId, @triggerKind, @triggerId, @eventId, @channel,
       @message, @at, @at, @at)
     ON CONFLICT (rule_id, issue_id, trigger_kind, trigger_id) DO NOTHING
     RETURNING *, (SELECT name FROM alert_rules WHERE id = rule_id) AS rule_name`,
  )
  const claim = db.prepare<
    [{ worker: string; leaseUntil: number; now: number; limit: number }],
    DeliveryRow
  >(
    `UPDATE alert_deliveries SET claimed_by = @worker, lease_until = @leaseUntil, updated_at = @now
     WHERE id IN (
       SELECT id FROM alert_deliveries
       WHERE status = 'pending' AND next_attempt_at <= @now
         AND (lease_until IS NULL OR lease_until <= @now)
       ORDER BY next_attempt_at, id LIMIT @limit)
     RETURNING *, (SELECT name FROM alert_rules WHERE id = rule_id) AS rule_name`,
  )
  // A read first: an idle poll then takes no write lock from the ingest writer thread.
  const anyDue = db.prepare<[{ now: number }], { one: number }>(
    `SELECT 1 AS one FROM alert_deliveries WHERE status = 'pending' AND next_attempt_at <= @now
       AND (lease_until IS NULL OR lease_until <= @now) LIMIT 1`,
  )
  const sent = db.prepare<[number, number, number, string]>(
    `UPDATE alert_deliveries SET status = 'sent', attempts = attempts + 1, sent_at = ?,
       updated_at = ?, claimed_by = NULL, lease_until = NULL
     WHERE id = ? AND claimed_by = ?`,
  )
  const failed = db.prepare<
    [{ retryAt: number | null; error: string; now: number; id: number; worker: string }]
  >(
    `UPDATE alert_deliveries SET status = CASE WHEN @retryAt IS NULL THEN 'failed' ELSE 'pending' END,
       attempts = attempts + 1, last_error = @error,
       next_attempt_at = COALESCE(@retryAt, next_attempt_at), updated_at = @now,
       claimed_by = NULL, lease_until = NULL
     WHERE id = @id AND claimed_by = @worker AND status = 'pending'`,
  )
  const release = db.prepare<[number, string]>(
    `UPDATE alert_deliveries SET claimed_by = NULL, lease_until = NULL
     WHERE id = ? AND claimed_by = ?`,
  )
  const enqueue = db.transaction((rows: readonly NewDelivery[]) => {
    const created: AlertDelivery[] = []
    for (const d of rows) {
      const r = insertDelivery.get({ ...d, channel: JSON.stringify(d.channel) }) as
        | DeliveryRow
        | undefined
      if (r !== undefined) created.push(toDelivery(r))
    }
    return created
  })
  // Rule lists per project, dropped when this store changes a rule; another connection's
  // change (another node on the file) is seen within RULES_TTL_MS.
  const rulesCache = new Map<number, { rows: RuleRow[]; at: number }>()
  const rowsOf = (projectId: number): RuleRow[] => {
    const hit = rulesCache.get(projectId)
    const now = Date.now()
    if (hit !== undefined && now - hit.at < RULES_TTL_MS) return hit.rows
    const rows = rulesOf.all(projectId)
    if (rulesCache.size > 10_000) rulesCache.clear()
    rulesCache.set(projectId, { rows, at: now })
    return rows
  }
  const removeRule = db.transaction((projectId: number, ruleId: number, now: number) => {
    if (deleteRule.run(now, projectId, ruleId).changes === 0) return false
    cancelPending.run(now, ruleId)
    return true
  })

  return {
    createAlertRule: async (projectId, rule, now) => {
      rulesCache.delete(projectId)
      const r = insertRule.get(
        projectId,
        rule.name,
        JSON.stringify(rule.conditions),
        JSON.stringify(rule.channel),
        now,
      )
      if (r === undefined) throw new Error('alert rule insert returned nothing')
      return toRule(r)
    },
    listAlertRules: async (projectId) => rowsOf(projectId).map(toRule),
    deleteAlertRule: async (projectId, ruleId, now) => {
      rulesCache.delete(projectId)
      return removeRule(projectId, ruleId, now)
    },
    countIssueEvents: async (issueId, since, cap) => countEvents.get(issueId, since, cap)?.n ?? 0,
    lastDeliveryAt: async (ruleId, issueId, kind) =>
      lastDelivery.get(ruleId, issueId, kind)?.at ?? null,
    enqueueDeliveries: async (rows) => enqueue(rows),
    claimDeliveries: async (workerId, now, leaseMs, limit) =>
      anyDue.get({ now }) === undefined
        ? []
        : claim.all({ worker: workerId, leaseUntil: now + leaseMs, now, limit }).map(toDelivery),
    finishAttempt: async (id, workerId, result) => {
      if (result.ok) return sent.run(result.at, result.at, id, workerId).changes > 0
      const error = result.error.slice(0, MAX_ERROR)
      const row = { retryAt: result.retryAt, error, now: result.at, id, worker: workerId }
      return failed.run(row).changes > 0
    },
    releaseDelivery: async (id, workerId) => {
      release.run(id, workerId)
    },
    listDeliveries: async (projectId, filter, page) => {
      const where = ['d.project_id = ?']
      const args: (string | number)[] = [projectId]
      if (filter.status !== undefined) {
        where.push('d.status = ?')
        args.push(filter.status)
      }
      if (filter.issueId !== undefined) {
        where.push('d.issue_id = ?')
        args.push(filter.issueId)
      }
      const before = page.cursor === undefined ? Number.NaN : Number(page.cursor)
      if (Number.isSafeInteger(before)) {
        where.push('d.id < ?')
        args.push(before)
      }
      const rows = db
        .prepare<(string | number)[], DeliveryRow>(
          `SELECT d.*, r.name AS rule_name FROM alert_deliveries d
           JOIN alert_rules r ON r.id = d.rule_id
           WHERE ${where.join(' AND ')} ORDER BY d.id DESC LIMIT ?`,
        )
        .all(...args, page.limit + 1)
      const deliveries = rows.slice(0, page.limit).map(toDelivery)
      const last = deliveries[deliveries.length - 1]
      return rows.length > page.limit && last !== undefined
        ? { deliveries, next: String(last.id) }
        : { deliveries }
    },
  }
}
