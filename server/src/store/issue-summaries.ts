import { hourOf } from './hours.ts'
import type { EventToWrite, EventWriteResult } from './model.ts'

/**
 * The page-read summaries of one group commit's new events, deduplicated so a backend writes
 * one row per distinct (issue, kind, value) in `issue_facets` and one upsert per distinct
 * (issue, hour) in `issue_hours` instead of one per event (both backends keep these tables so
 * the issue list's filters and the issue chart never scan `events`: docs/pages-at-scale.md).
 * Rows come sorted by key: concurrent PostgreSQL transactions then lock them in one order.
 */
export class IssueSummaries {
  private readonly facetRows = new Map<string, [number, string, string, number]>()
  private readonly hourRows = new Map<string, [number, number, number]>()

  /** Counts one written event (duplicates are not counted). */
  add(e: EventToWrite, r: EventWriteResult): void {
    if (r.duplicate) return
    this.facet(r.issueId, 'environment', e.environment, e.projectId)
    this.facet(r.issueId, 'release', e.release, e.projectId)
    this.facet(r.issueId, 'component', e.component, e.projectId)
    const hour = hourOf(e.received)
    const k = `${r.issueId}\0${hour}`
    const h = this.hourRows.get(k)
    if (h === undefined) this.hourRows.set(k, [r.issueId, hour, 1])
    else h[2] += 1
  }

  private facet(issueId: number, kind: string, value: string | null, projectId: number): void {
    if (value === null || value === '') return
    const k = `${issueId}\0${kind}\0${value}`
    if (!this.facetRows.has(k)) this.facetRows.set(k, [issueId, kind, value, projectId])
  }

  /** Distinct (issue, kind, value, project) rows seen in the group, in key order. */
  facets(): [number, string, string, number][] {
    return [...this.facetRows.values()].sort(
      (a, b) => a[0] - b[0] || cmp(a[1], b[1]) || cmp(a[2], b[2]),
    )
  }

  /** (issue, hour, events) increments, in key order. */
  hours(): [number, number, number][] {
    return [...this.hourRows.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1])
  }
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
