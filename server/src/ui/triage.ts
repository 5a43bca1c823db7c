/**
 * The UI's one doorway to triage: list tabs, tab counts and issue actions. Kept in one file so
 * the pages do not depend on where the triage functions live (`server/src/triage/`).
 */

import { notFound } from '../errors.ts'
import type { Services } from '../services.ts'
import type { Issue, IssueFilter } from '../store/types.ts'
import { updateIssues } from '../triage/change.ts'

/** The issue list's tabs. */
export type Tab = 'review' | 'unresolved' | 'resolved' | 'ignored'

/** Tabs in display order. */
export const TABS: readonly { id: Tab; label: string }[] = [
  { id: 'review', label: 'For review' },
  { id: 'unresolved', label: 'Unresolved' },
  { id: 'resolved', label: 'Resolved' },
  { id: 'ignored', label: 'Ignored' },
]

/** What a user can do to an issue. */
export type TriageAction = 'resolve' | 'ignore' | 'unresolve' | 'review'

/** How long an ignore lasts: for a time, until N more events, or until changed. */
export interface IgnoreOptions {
  forMs?: number
  untilCount?: number
}

/** A list read of one tab. */
export interface TabPage {
  issues: Issue[]
  next?: string
}

/** The API-shaped update for an action (see `triage/change.ts`). */
export function updateFor(action: TriageAction, opts: IgnoreOptions = {}): Record<string, unknown> {
  switch (action) {
    case 'resolve':
      return { status: 'resolved' }
    case 'unresolve':
      return { status: 'unresolved' }
    case 'review':
      return { reviewed: true }
    case 'ignore':
      return {
        status: 'ignored',
        ...(opts.forMs === undefined
          ? {}
          : { ignore_duration: Math.max(1, Math.round(opts.forMs / 60_000)) }),
        ...(opts.untilCount === undefined ? {} : { ignore_count: opts.untilCount }),
      }
  }
}

/** Triage operations bound to the running services (the store and `updateIssues`). */
export function triage(services: Services) {
  const { store } = services
  return {
    listIssues: async (
      projectId: number,
      tab: Tab,
      q: {
        filter: Omit<IssueFilter, 'status' | 'forReview'>
        limit: number
        cursor?: string | undefined
      },
    ): Promise<TabPage> => {
      const filter: IssueFilter =
        tab === 'review'
          ? { ...q.filter, status: 'unresolved', forReview: true }
          : { ...q.filter, status: tab }
      return store.listIssues(projectId, filter, { limit: q.limit, cursor: q.cursor })
    },
    tabCounts: async (projectId: number): Promise<Record<Tab, number>> => {
      const [c, review] = await Promise.all([
        store.issueCountsByStatus(projectId),
        store.countForReview(projectId),
      ])
      return { review, unresolved: c.unresolved, resolved: c.resolved, ignored: c.ignored }
    },
    /** Applies an action to one issue of a project (404 when it is another project's). */
    act: async (projectId: number, issueId: number, action: TriageAction, opts?: IgnoreOptions) => {
      const updated = await updateIssues(store, projectId, [issueId], updateFor(action, opts))
      if (updated.length === 0) throw notFound('issue')
      return updated
    },
    /** Applies an action to those of the issues that belong to the project. */
    bulk: async (projectId: number, issueIds: number[], action: TriageAction) =>
      issueIds.length === 0
        ? []
        : updateIssues(store, projectId, issueIds.slice(0, 1000), updateFor(action)),
  }
}
