import type { LiveBus, LiveEvents } from '../live/bus.ts'
import type {
  AlertCondition,
  AlertDelivery,
  AlertRule,
  AlertTriggerKind,
  Issue,
  NewDelivery,
  PendingAlert,
  Store,
  StoredEvent,
} from '../store/types.ts'
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

/** A condition that fired. */
interface Fired {
  kind: AlertTriggerKind
  triggerId: string
  frequency?: AlertMessage['frequency']
}

/** Upper bound when counting an issue's events for the alert text (not for the decision). */
const COUNT_CAP = 100_000

/**
 * Turns alerts into deliveries: new-issue and regression decisions recorded by the ingest
 * transaction (`deliverDecision`, run by alerts/decision-drain.ts on any node), frequency
 * conditions evaluated for each `event.stored` notice; the deliveries are written down with their unique key (rule, issue,
 * trigger kind, trigger id), so a trigger seen twice — or by two nodes — alerts once.
 * Ignored issues never alert. One event makes at most one delivery per rule.
 */
export class AlertTriggers {
  private readonly deps: TriggerDeps
  private readonly inFlight = new Set<Promise<unknown>>()

  constructor(deps: TriggerDeps) {
    this.deps = deps
  }

  private now(): number {
    return (this.deps.now ?? Date.now)()
  }

  /** Subscribes to the bus; returns the unsubscribe function. */
  listen(bus: LiveBus): () => void {
    const listener = (e: StoredEventNotice) => {
      const p = this.handle(e).then(
        (created) => {
          if (created.length > 0) this.deps.onEnqueued(created)
        },
        (err: unknown) => this.deps.onError(err),
      )
      this.inFlight.add(p)
      void p.finally(() => this.inFlight.delete(p))
    }
    bus.on('event.stored', listener)
    return () => bus.off('event.stored', listener)
  }

  /** Resolves once every notice received so far has been evaluated and written down. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight])
  }

  /** Evaluates the rules for one stored event; returns the deliveries it created. */
  async handle(e: StoredEventNotice): Promise<AlertDelivery[]> {
    const { store } = this.deps
    const rules = await store.listAlertRules(e.projectId)
    if (rules.length === 0) return []
    const issue = await store.getIssue(e.issueId)
    if (issue === undefined || issue.status === 'ignored') return []
    const now = this.now()
    const fired: [AlertRule, Fired][] = []
    for (const rule of rules) {
      for (const cond of rule.conditions) {
        const f = await this.evaluate(rule, cond, issue, now)
        if (f !== undefined) {
          fired.push([rule, f])
          break
        }
      }
    }
    if (fired.length === 0) return []
    const project = await store.getProject(e.projectId)
    if (project === undefined) return []
    const event: StoredEvent | undefined = await store.getEvent(e.projectId, e.eventId)
    const rows: NewDelivery[] = fired.map(([rule, f]) => ({
      ruleId: rule.id,
      projectId: e.projectId,
      issueId: issue.id,
      triggerKind: f.kind,
      triggerId: f.triggerId,
      eventId: e.eventId,
      channel: rule.channel,
      message: JSON.stringify(
        buildMessage({
          trigger: f.kind,
          rule,
          project,
          issue,
          event,
          ...(f.frequency !== undefined ? { frequency: f.frequency } : {}),
          baseUrl: this.deps.baseUrl(),
          now,
        }),
      ),
      at: now,
    }))
    return store.enqueueDeliveries(rows)
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
            baseUrl: this.deps.baseUrl(),
            now,
          }),
        ),
        at: now,
      },
    ])
  }

  /** Whether one condition fires for this event, and with which unique trigger id. */
  private async evaluate(
    rule: AlertRule,
    cond: AlertCondition,
    issue: Issue,
    now: number,
  ): Promise<Fired | undefined> {
    switch (cond.type) {
      // Decided in the ingest transaction (store/alert-decisions.ts), delivered by drain.
      case 'new_issue':
      case 'regression':
        return undefined
      case 'frequency': {
        const { threshold, windowMinutes } = cond
        if (issue.timesSeen <= threshold) return undefined
        const windowMs = windowMinutes * 60_000
        const since = now - windowMs
        const { store } = this.deps
        if ((await store.countIssueEvents(issue.id, since, threshold + 1)) <= threshold)
          return undefined
        // At most one frequency alert per rule and issue per window: the window number is the
        // unique trigger id (nodes racing on it insert once); the last delivery covers windows
        // that straddle a boundary.
        const last = await store.lastDeliveryAt(rule.id, issue.id, 'frequency')
        if (last !== null && now - last < windowMs) return undefined
        const count = await store.countIssueEvents(issue.id, since, COUNT_CAP)
        return {
          kind: 'frequency',
          triggerId: String(Math.floor(now / windowMs)),
          frequency: { count, threshold, window_minutes: windowMinutes },
        }
      }
    }
  }
}
