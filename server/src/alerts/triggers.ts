import type { LiveEvents } from '../live/bus.ts'
import type { AlertDelivery, PendingAlert, Store } from '../store/types.ts'
import { type AlertMessage, buildMessage } from './message.ts'

/** What the ingest path announces for each stored event. */
export type StoredEventNotice = LiveEvents['event.stored'][0]

/** What {@link AlertTriggers} needs. */
export interface TriggerDeps {
  store: Store
  baseUrl: () => string
  now?: () => number
  /** Called after deliveries were written down (wakes the worker). */
  onEnqueued: (created: AlertDelivery[]) => void
  onError: (err: unknown) => void
}

/** Upper bound when counting an issue's events for the alert text (not for the decision). */
const COUNT_CAP = 100_000

/**
 * Turns the alert decisions the ingest transaction recorded (new issue, regression,
 * frequency: store/alert-decisions.ts) into deliveries, run by alerts/decision-drain.ts on any
 * node. The deliveries are written down with their unique key (rule, issue, trigger kind,
 * trigger id), so a decision handled twice — or by two nodes — alerts once. Ignored issues
 * never alert. One event makes at most one delivery per rule.
 */
export class AlertTriggers {
  private readonly deps: TriggerDeps

  constructor(deps: TriggerDeps) {
    this.deps = deps
  }

  private now(): number {
    return (this.deps.now ?? Date.now)()
  }

  /**
   * Writes down the delivery of an alert decision the ingest transaction recorded (new issue,
   * regression); the delivery's unique key makes a second try (another node, a retry after a
   * crash) a no-op. Returns the deliveries created.
   */
  async deliverDecision(d: PendingAlert): Promise<AlertDelivery[]> {
    const { store } = this.deps
    const rule = (await store.listAlertRules(d.projectId)).find((r) => r.id === d.ruleId)
    const issue = await store.getIssue(d.issueId)
    const project = await store.getProject(d.projectId)
    // A rule deleted or an issue ignored since: nothing to send.
    if (rule === undefined || issue === undefined || issue.status === 'ignored') return []
    if (project === undefined) return []
    const now = this.now()
    let frequency: AlertMessage['frequency'] | undefined
    if (d.kind === 'frequency') {
      const cond = rule.conditions.find((c) => c.type === 'frequency')
      if (cond === undefined) return []
      const windowMs = cond.windowMinutes * 60_000
      // One frequency alert per window length: a window that straddles the last alert's is
      // covered by it (the trigger id only tells fixed windows apart).
      const last = await store.lastDeliveryAt(rule.id, issue.id, 'frequency')
      if (last !== null && now - last < windowMs) return []
      const count = await store.countIssueEvents(issue.id, now - windowMs, COUNT_CAP)
      frequency = { count, threshold: cond.threshold, window_minutes: cond.windowMinutes }
    }
    const event = await store.getEvent(d.projectId, d.eventId)
    return store.enqueueDeliveries([
      {
        ruleId: rule.id,
        projectId: d.projectId,
        issueId: issue.id,
        triggerKind: d.kind,
        triggerId: d.triggerId,
        eventId: d.eventId,
        channel: rule.channel,
        message: JSON.stringify(
          buildMessage({
            trigger: d.kind,
            rule,
            project,
            issue,
            event,
            ...(frequency !== undefined ? { frequency } : {}),
            baseUrl: this.deps.baseUrl(),
            now,
          }),
        ),
        at: now,
      },
    ])
  }
}
