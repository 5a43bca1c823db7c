import type { LiveBus, LiveEvents } from '../live/bus.ts'
import type {
  AlertCondition,
  AlertDelivery,
  AlertRule,
  AlertTriggerKind,
  Issue,
  NewDelivery,
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
 * Turns stored events into deliveries: evaluates the project's rules for each
 * `event.stored` notice and writes the deliveries down with their unique key (rule, issue,
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
        const f = await this.evaluate(rule, cond, e, issue, now)
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

  /** Whether one condition fires for this event, and with which unique trigger id. */
  private async evaluate(
    rule: AlertRule,
    cond: AlertCondition,
    e: StoredEventNotice,
    issue: Issue,
    now: number,
  ): Promise<Fired | undefined> {
    switch (cond.type) {
      case 'new_issue':
        return e.issueCreated ? { kind: 'new_issue', triggerId: 'first' } : undefined
      case 'regression':
        return e.regressed ? { kind: 'regression', triggerId: e.eventId } : undefined
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
