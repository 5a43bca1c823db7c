import type { Page } from './model.ts'

/** What fires an alert rule. */
export type AlertCondition =
  | { type: 'new_issue' }
  | { type: 'regression' }
  | { type: 'frequency'; threshold: number; windowMinutes: number }

/** Where an alert rule sends. */
export type AlertChannel =
  | { type: 'webhook'; url: string; format: 'json' | 'slack' }
  | { type: 'email'; to: string[] }

/** A project's alert rule: any of its conditions sends one alert to its channel. */
export interface AlertRule {
  id: number
  projectId: number
  name: string
  conditions: AlertCondition[]
  channel: AlertChannel
  createdAt: number
}

/** Which condition made a delivery. */
export type AlertTriggerKind = AlertCondition['type']

/** Delivery states: pending (due or waiting to retry), sent, failed (given up or cancelled). */
export type DeliveryStatus = 'pending' | 'sent' | 'failed'

/** A delivery to write down; (rule, issue, trigger kind, trigger id) makes it unique. */
export interface NewDelivery {
  ruleId: number
  projectId: number
  issueId: number
  triggerKind: AlertTriggerKind
  /** `first` for a new issue, the event id for a regression, the window for a frequency. */
  triggerId: string
  eventId: string | null
  /** The rule's channel when the alert fired. */
  channel: AlertChannel
  /** The alert's content (JSON), fixed when the delivery is written down. */
  message: string
  at: number
}

/** One delivery of the log (the outbox the alert worker drains). */
export interface AlertDelivery extends Omit<NewDelivery, 'at'> {
  id: number
  ruleName: string
  status: DeliveryStatus
  attempts: number
  lastError: string | null
  nextAttemptAt: number
  createdAt: number
  updatedAt: number
  sentAt: number | null
}

/** How one send attempt ended; `retryAt` null gives up (status `failed`). */
export type AttemptResult =
  | { ok: true; at: number }
  | { ok: false; at: number; error: string; retryAt: number | null }

/** Alert rules and the delivery outbox shared by every server node. */
export interface AlertStore {
  createAlertRule(
    projectId: number,
    rule: Pick<AlertRule, 'name' | 'conditions' | 'channel'>,
    now: number,
  ): Promise<AlertRule>
  listAlertRules(projectId: number): Promise<AlertRule[]>
  /** Deletes a rule and cancels its pending deliveries; false when there is no such rule. */
  deleteAlertRule(projectId: number, ruleId: number, now: number): Promise<boolean>
  /** Events of an issue received at or after `since`, counting no further than `cap`. */
  countIssueEvents(issueId: number, since: number, cap: number): Promise<number>
  /** When the rule last made a delivery of this kind for the issue (ms), if ever. */
  lastDeliveryAt(ruleId: number, issueId: number, kind: AlertTriggerKind): Promise<number | null>
  /** Writes deliveries down; ones whose unique key exists are skipped. Returns those created. */
  enqueueDeliveries(rows: readonly NewDelivery[]): Promise<AlertDelivery[]>
  /** Atomically leases up to `limit` due deliveries to `workerId` until `now + leaseMs`. */
  claimDeliveries(
    workerId: string,
    now: number,
    leaseMs: number,
    limit: number,
  ): Promise<AlertDelivery[]>
  /** Records an attempt of a delivery this worker holds; false when it no longer holds it. */
  finishAttempt(id: number, workerId: string, result: AttemptResult): Promise<boolean>
  /** Gives a claimed delivery back untried (shutdown), due again at once. */
  releaseDelivery(id: number, workerId: string): Promise<void>
  /** The delivery log of a project, newest first, keyset-paged by id. */
  listDeliveries(
    projectId: number,
    filter: { status?: DeliveryStatus | undefined; issueId?: number | undefined },
    page: Page,
  ): Promise<{ deliveries: AlertDelivery[]; next?: string }>
}

/** An alert decision: the row the ingest transaction writes into `alert_triggers`. */
export interface AlertDecision {
  ruleId: number
  projectId: number
  issueId: number
  kind: AlertTriggerKind
  /** `first` for a new issue, the event id for a regression (the deliveries' unique key). */
  triggerId: string
  eventId: string
}

/** An alert decision the ingest transaction recorded, leased to one node's worker. */
export interface PendingAlert extends AlertDecision {
  id: number
}

/** The outbox of alert decisions (store/alert-decisions.ts writes it in the ingest transaction). */
export interface AlertOutboxStore {
  /** Leases up to `limit` decisions nobody holds (or whose lease lapsed) until `now + leaseMs`. */
  claimAlertDecisions(
    workerId: string,
    now: number,
    leaseMs: number,
    limit: number,
  ): Promise<PendingAlert[]>
  /** Removes a decision whose delivery is written down (or that can no longer be sent). */
  finishAlertDecision(id: number): Promise<void>
}
