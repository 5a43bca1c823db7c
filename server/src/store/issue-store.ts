import type { Issue, IssueStatus, OutcomeTotal, Page } from './model.ts'

/** Filters for the issue list. */
export interface IssueFilter {
  status?: IssueStatus | undefined
  query?: string | undefined
  environment?: string | undefined
  release?: string | undefined
  component?: string | undefined
  /** true: only unresolved issues in the For review queue; false: only those out of it. */
  forReview?: boolean | undefined
}

/** A stored event as read back. */
export interface StoredEvent {
  eventId: string
  issueId: number
  projectId: number
  received: number
  component: string | null
  payload: string
}

/** Reads for the API and UI. */
export interface IssueStore {
  listIssues(
    projectId: number,
    filter: IssueFilter,
    page: Page,
  ): Promise<{ issues: Issue[]; next?: string }>
  getIssue(id: number): Promise<Issue | undefined>
  /**
   * The project of an issue, without its counters: what an access check needs, and on
   * PostgreSQL a read that does not wait for a fold of the pending counters as `getIssue` does.
   */
  issueProjectId(id: number): Promise<number | undefined>
  setIssueStatus(id: number, status: IssueStatus): Promise<boolean>
  listIssueEvents(issueId: number, page: Page): Promise<{ events: StoredEvent[]; next?: string }>
  getEvent(projectId: number, eventId: string): Promise<StoredEvent | undefined>
  outcomeTotals(projectId: number, since: number, until: number): Promise<OutcomeTotal[]>
}

/**
 * Tab counts stop counting past this many issues: a count walks one index entry per issue, so an
 * exact count of a million issues would hold the thread for about as long as a list of them.
 * Sentry's issue stream caps its hit counts the same way (`max_hits`, shown as "1000+").
 */
export const ISSUE_COUNT_CAP = 10_000

/** A change of triage state for one or many issues (`PUT` of an issue, the bulk `PUT`). */
export interface IssueChange {
  status?: IssueStatus | undefined
  /** With status `ignored`: ignored until this time (ms), then back to For review. */
  ignoreUntil?: number | undefined
  /** With status `ignored`: ignored until it is seen this many more times. */
  ignoreCount?: number | undefined
  /** true takes issues out of the For review queue; false puts unresolved ones back in. */
  reviewed?: boolean | undefined
}

/** Triage writes: status, the For review queue and ignore conditions. */
export interface TriageStore {
  /** Applies a change to those of `ids` that belong to the project; returns them, updated. */
  triageIssues(projectId: number, ids: readonly number[], change: IssueChange): Promise<Issue[]>
  /** Ignored issues whose ignore time passed at `now` go back to unresolved and For review. */
  expireIgnores(now: number): Promise<number>
  /**
   * How many of a project's issues wait in the For review queue (the UI's tab count), counted up
   * to `ISSUE_COUNT_CAP + 1`.
   */
  countForReview(projectId: number): Promise<number>
}
