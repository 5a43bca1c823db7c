import type { AlertDecision } from './alert-store.ts'
import type { EventWriteResult } from './model.ts'

/** A project's live rule as the ingest transaction reads it (`alert_rules` row). */
export interface RuleConditionsRow {
  id: number
  project_id: number
  conditions: string
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
 * conditions are decided in the same transaction ({@link frequencyChecks}).
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

/** A rule's frequency condition as stored: more than `threshold` events in `windowMinutes`. */
interface Frequency {
  threshold: number
  windowMs: number
}

const frequencyOf = (conditions: string): Frequency | undefined => {
  try {
    const list: unknown = JSON.parse(conditions)
    if (!Array.isArray(list)) return undefined
    for (const c of list as unknown[]) {
      if (typeof c !== 'object' || c === null) continue
      const { type, threshold, windowMinutes } = c as Record<string, unknown>
      if (type !== 'frequency') continue
      if (typeof threshold !== 'number' || typeof windowMinutes !== 'number') continue
      return { threshold, windowMs: windowMinutes * 60_000 }
    }
  } catch {
    return undefined
  }
  return undefined
}

/**
 * One count the ingest transaction runs for a frequency rule: the issue's events since
 * `since` (capped at `threshold + 1`, all the decision needs), the group's own included.
 */
export interface FrequencyCheck {
  ruleId: number
  projectId: number
  issueId: number
  eventId: string
  threshold: number
  windowMs: number
  since: number
}

/**
 * The frequency counts a group needs: one per (rule, issue) the group stored an event of,
 * naming the group's last such event; none for an event that already made a one-shot decision
 * of that rule (one delivery per rule and event).
 */
export function frequencyChecks(
  rules: readonly RuleConditionsRow[],
  stored: readonly { projectId: number; r: EventWriteResult }[],
  oneShot: readonly AlertDecision[],
  now: number,
): FrequencyCheck[] {
  const freq = rules.flatMap((rule) => {
    const f = frequencyOf(rule.conditions)
    return f === undefined ? [] : [{ rule, f }]
  })
  if (freq.length === 0) return []
  const decided = new Set(oneShot.map((d) => `${d.ruleId}\0${d.eventId}`))
  const checks = new Map<string, FrequencyCheck>()
  for (const { projectId, r } of stored) {
    if (r.duplicate || r.issueId === 0) continue
    for (const { rule, f } of freq) {
      if (rule.project_id !== projectId || decided.has(`${rule.id}\0${r.eventId}`)) continue
      checks.set(`${rule.id}\0${r.issueId}`, {
        ruleId: rule.id,
        projectId,
        issueId: r.issueId,
        eventId: r.eventId,
        threshold: f.threshold,
        windowMs: f.windowMs,
        since: now - f.windowMs,
      })
    }
  }
  return [...checks.values()]
}

/**
 * The decision of one frequency check: the issue was seen more than `threshold` times in the
 * window. The window's number is the trigger id, so the unique key allows one alert per rule,
 * issue and window whichever node or group decides it; the delivery step also skips a window
 * that straddles the previous alert's (alerts/triggers.ts).
 */
export function frequencyDecision(
  c: FrequencyCheck,
  count: number,
  now: number,
): AlertDecision | undefined {
  if (count <= c.threshold) return undefined
  return {
    ruleId: c.ruleId,
    projectId: c.projectId,
    issueId: c.issueId,
    kind: 'frequency',
    triggerId: String(Math.floor(now / c.windowMs)),
    eventId: c.eventId,
  }
}
