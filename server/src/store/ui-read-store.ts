import type { IssueStatus } from './model.ts'

/** A count over one time bucket (`start` in ms). */
export interface TimeBucket {
  start: number
  count: number
}

/** Distinct filter values of a project's recent events. */
export interface ProjectFacets {
  environments: string[]
  releases: string[]
  components: string[]
}

/** Neighbouring events of one event inside its issue (event ids). */
export interface EventNeighbours {
  newer?: string
  older?: string
  newest?: string
  oldest?: string
}

/** Reads only the web UI needs: charts, filter choices, tab counts and event stepping. */
export interface UiReadStore {
  /** Events of an issue per bucket of `bucketMs` ms received at or after `since`, oldest first. */
  issueHistogram(issueId: number, since: number, bucketMs: number): Promise<TimeBucket[]>
  /** Environments, releases and components the project's issues have seen (at most 200 each). */
  projectFacets(projectId: number): Promise<ProjectFacets>
  /** Issues per status, each counted up to `ISSUE_COUNT_CAP + 1` (shown as "10,000+"). */
  issueCountsByStatus(projectId: number): Promise<Record<IssueStatus, number>>
  eventNeighbours(issueId: number, eventId: string): Promise<EventNeighbours>
}
