/**
 * Alert rule and delivery rows as both stores read them, and their mapping to the store types.
 * Shared so the SQLite and PostgreSQL stores cannot map a column differently.
 */
import type {
  AlertChannel,
  AlertCondition,
  AlertDelivery,
  AlertRule,
  AlertTriggerKind,
  DeliveryStatus,
  PendingAlert,
} from '../alert-store.ts'

/** A `RuleRow` as the SQL returns it (snake_case columns). */
export interface RuleRow {
  id: number
  project_id: number
  name: string
  conditions: string
  channel: string
  created_at: number
}

/** A `DeliveryRow` as the SQL returns it (snake_case columns). */
export interface DeliveryRow {
  id: number
  rule_id: number
  rule_name: string | null
  project_id: number
  issue_id: number
  trigger_kind: AlertTriggerKind
  trigger_id: string
  event_id: string | null
  channel: string
  message: string
  status: DeliveryStatus
  attempts: number
  last_error: string | null
  next_attempt_at: number
  created_at: number
  updated_at: number
  sent_at: number | null
}

// Rule conditions and channels are JSON the API validated before writing them.
/** Maps a `RuleRow` to the store's `AlertRule`. */
export const toRule = (r: RuleRow): AlertRule => ({
  id: r.id,
  projectId: r.project_id,
  name: r.name,
  conditions: JSON.parse(r.conditions) as AlertCondition[],
  channel: JSON.parse(r.channel) as AlertChannel,
  createdAt: r.created_at,
})

/** Maps a `DeliveryRow` to the store's `AlertDelivery`. */
export const toDelivery = (r: DeliveryRow): AlertDelivery => ({
  id: r.id,
  ruleId: r.rule_id,
  ruleName: r.rule_name ?? '',
  projectId: r.project_id,
  issueId: r.issue_id,
  triggerKind: r.trigger_kind,
  triggerId: r.trigger_id,
  eventId: r.event_id,
  channel: JSON.parse(r.channel) as AlertChannel,
  message: r.message,
  status: r.status,
  attempts: r.attempts,
  lastError: r.last_error,
  nextAttemptAt: r.next_attempt_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  sentAt: r.sent_at,
})

/** An `alert_triggers` row: an alert decision the ingest transaction recorded. */
export interface TriggerRow {
  id: number
  rule_id: number
  project_id: number
  issue_id: number
  trigger_kind: AlertTriggerKind
  trigger_id: string
  event_id: string
}

/** The columns of a {@link TriggerRow}, as both outboxes return them after a claim. */
export const TRIGGER_COLUMNS =
  'id, rule_id, project_id, issue_id, trigger_kind, trigger_id, event_id'

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
