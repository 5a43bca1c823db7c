import type { AlertTriggerKind, EventWriteResult } from './types.ts'

/** A project's live rule as the ingest transaction reads it (`alert_rules` row). */
export interface RuleConditionsRow {
  id: number
  project_id: number
  conditions: string
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

const kindsOf = (conditions: string): Set<string> => {
  try {
    const list: unknown = JSON.parse(conditions)
    if (!Array.isArray(list)) return new Set()
    return new Set(
      list.flatMap((c: unknown) =>
        typeof c === 'object' && c !== null && 'type' in c && typeof c.type === 'string'
          ? [c.type]
          : [],
      ),
    )
  } catch {
    return new Set()
  }
}

/** Whether any stored event of a group can match a one-shot condition (then rules are read). */
export const mayAlert = (r: EventWriteResult): boolean =>
  !r.duplicate && (r.issueCreated || r.regressed)

/**
 * Decides, inside the ingest transaction, which rules a group's stored events match for the
 * one-shot conditions: a new issue (`new_issue`) and a regression (`regression`). Written in
 * the same transaction as the events, the decision survives a node dying right after the
 * commit; any node's delivery worker turns it into a delivery (alerts/triggers.ts). Frequency
 * conditions are evaluated after the commit: each later event in the window evaluates them
 * again, so a node lost between commit and evaluation delays such an alert by one event at
 * most instead of losing it.
 */
export function decideAlerts(
  rules: readonly RuleConditionsRow[],
  stored: readonly { projectId: number; r: EventWriteResult }[],
): AlertDecision[] {
  const out: AlertDecision[] = []
  for (const { projectId, r } of stored) {
    if (!mayAlert(r)) continue
    for (const rule of rules) {
      if (rule.project_id !== projectId) continue
      const kinds = kindsOf(rule.conditions)
      const base = { ruleId: rule.id, projectId, issueId: r.issueId, eventId: r.eventId }
      // One delivery per rule and event: the first condition that fires, as after the commit.
      if (r.issueCreated && kinds.has('new_issue'))
        out.push({ ...base, kind: 'new_issue', triggerId: 'first' })
      else if (r.regressed && kinds.has('regression'))
        out.push({ ...base, kind: 'regression', triggerId: r.eventId })
    }
  }
  return out
}
