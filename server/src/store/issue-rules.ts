import type { IssueChange } from './issue-store.ts'
import type { Issue, IssueStatus } from './model.ts'

/** The triage columns of an issue: what the rules below read and decide. */
export interface TriageState {
  status: IssueStatus
  forReview: boolean
  ignoreUntil: number | null
  ignoreUntilSeen: number | null
}

/**
 * The state an issue ends in after a change. Resolving and ignoring take it out of For review
 * and clear old ignore conditions; reopening by hand keeps it out (someone looked at it).
 */
export function applyChange(issue: Issue, change: IssueChange): TriageState {
  const next: TriageState = {
    status: issue.status,
    forReview: issue.forReview,
    ignoreUntil: issue.ignoreUntil,
    ignoreUntilSeen: issue.ignoreUntilSeen,
  }
  if (change.status !== undefined) {
    next.forReview =
      change.status === 'unresolved' && issue.status === 'unresolved' && next.forReview
    next.status = change.status
    next.ignoreUntil = change.status === 'ignored' ? (change.ignoreUntil ?? null) : null
    next.ignoreUntilSeen =
      change.status === 'ignored' && change.ignoreCount !== undefined
        ? issue.timesSeen + change.ignoreCount
        : null
  }
  if (change.reviewed !== undefined) next.forReview = !change.reviewed
  if (next.status !== 'unresolved') next.forReview = false
  return next
}

/** The triage columns of a grouped issue a new event lands in, and its count so far. */
export interface IssueOnEvent extends TriageState {
  timesSeen: number
}

/** What a new event does to its issue's triage state. */
export interface EventTriage extends TriageState {
  /** The issue was resolved: a regression (alerts fire on it). */
  regressed: boolean
}

/**
 * The regression and ignore rules, decided in code so every backend applies the same ones (the
 * stores only read the issue row and write the result, inside their ingest transaction): a
 * resolved issue regresses; an ignored one comes back once its ignore condition is met (its
 * time passed, or it was seen the given number of more times). Either way it becomes
 * unresolved, For review, with its ignore conditions cleared (Sentry's behaviour).
 */
export function triageOnEvent(issue: IssueOnEvent, received: number): EventTriage {
  const seen = issue.timesSeen + 1
  const ignoreOver =
    issue.status === 'ignored' &&
    ((issue.ignoreUntil !== null && issue.ignoreUntil <= received) ||
      (issue.ignoreUntilSeen !== null && seen >= issue.ignoreUntilSeen))
  const regressed = issue.status === 'resolved'
  if (!regressed && !ignoreOver) return { ...pick(issue), regressed: false }
  return {
    status: 'unresolved',
    forReview: true,
    ignoreUntil: null,
    ignoreUntilSeen: null,
    regressed,
  }
}

const pick = (s: TriageState): TriageState => ({
  status: s.status,
  forReview: s.forReview,
  ignoreUntil: s.ignoreUntil,
  ignoreUntilSeen: s.ignoreUntilSeen,
})
