import type { SearchQuery } from '../search/query.ts'
import type { StoredEvent } from './issue-store.ts'
import type { Issue, Page } from './model.ts'

/** The orders of the issue list: last seen (default), first seen, events, users; newest/most first. */
export type IssueSort = 'last_seen' | 'first_seen' | 'times_seen' | 'users'

/** One tag key of an issue with its top values (the issue page's distribution). */
export interface TagDistribution {
  key: string
  /** Events of the issue that carried the key. */
  total: number
  /** Distinct values of the key. */
  distinct: number
  /** The most frequent values, most first, with their event counts. */
  top: { value: string; count: number }[]
}

/** The search reads (docs/search.md), written once for both backends (queries/issue-search.ts). */
export interface IssueSearchStore {
  /** The project's issues matching a parsed query, in `sort` order; keyset paging. */
  searchIssues(
    projectId: number,
    query: SearchQuery,
    sort: IssueSort,
    page: Page,
  ): Promise<{ issues: Issue[]; next?: string }>
  /** Per tag key of an issue, its `top` most frequent values; keys in name order. */
  tagDistribution(issueId: number, top: number): Promise<TagDistribution[]>
  /**
   * The issue's events matching a query (search/match-event.ts), newest first. At most
   * `EVENT_SCAN_LIMIT` events are read per call: `next` then continues where the scan
   * stopped, even when this page holds fewer than `limit` events.
   */
  searchIssueEvents(
    issueId: number,
    query: SearchQuery,
    page: Page,
  ): Promise<{ events: StoredEvent[]; next?: string }>
}

/**
 * The indexing of events stored before the search indexes existed (docs/search.md), written
 * once for both backends (queries/search-backfill.ts) and run by a lease-held job.
 */
export interface SearchBackfillStore {
  /**
   * Indexes at most `limit` not yet indexed events, oldest first, in one transaction;
   * resolves with how many it indexed (0: none is left).
   */
  indexUnindexedEvents(limit: number): Promise<number>
}
