import type { EventToWrite, EventWriteResult } from './types.ts'

/** One `issue_tags` increment: issue, key, value, events, first and last receive time. */
export type IssueTagRow = [number, string, string, number, number, number]

/**
 * The search indexes' rows of one group commit's new events (docs/search.md), aggregated so a
 * backend writes one upsert per distinct (issue, key, value) instead of one per event, and the
 * text of each issue the group created. Rows come sorted by key: concurrent PostgreSQL
 * transactions then lock them in one order.
 */
export class SearchSummaries {
  // issue → key → value → row: nested maps, so counting an event's tags builds no key strings.
  private readonly tagRows = new Map<number, Map<string, Map<string, IssueTagRow>>>()
  private readonly texts = new Map<number, string>()

  /** Counts one written event (duplicates are not counted). */
  add(e: EventToWrite, r: EventWriteResult): void {
    if (r.duplicate) return
    const tags = e.tags
    if (tags !== undefined && tags.length > 0) this.addTags(r.issueId, tags, e.received)
    if (r.issueCreated && !this.texts.has(r.issueId))
      this.texts.set(r.issueId, [e.title, e.culprit, e.text ?? ''].join(' '))
  }

  /** Counts one event's tags for its issue (ingest, and the backfill of older events). */
  addTags(issueId: number, tags: readonly (readonly [string, string])[], received: number): void {
    let byKey = this.tagRows.get(issueId)
    if (byKey === undefined) {
      byKey = new Map()
      this.tagRows.set(issueId, byKey)
    }
    for (const [key, value] of tags) {
      let byValue = byKey.get(key)
      if (byValue === undefined) {
        byValue = new Map()
        byKey.set(key, byValue)
      }
      const row = byValue.get(value)
      if (row === undefined) byValue.set(value, [issueId, key, value, 1, received, received])
      else {
        row[3] += 1
        if (received < row[4]) row[4] = received
        if (received > row[5]) row[5] = received
      }
    }
  }

  /** Distinct (issue, key, value) increments, in key order. */
  tags(): IssueTagRow[] {
    const out: IssueTagRow[] = []
    for (const byKey of this.tagRows.values())
      for (const byValue of byKey.values()) for (const row of byValue.values()) out.push(row)
    return out.sort((a, b) => a[0] - b[0] || cmp(a[1], b[1]) || cmp(a[2], b[2]))
  }

  /** (issue, text) of the issues the group created, in issue order. */
  issueTexts(): [number, string][] {
    return [...this.texts].sort((a, b) => a[0] - b[0])
  }
}

/**
 * New distinct users per issue, from the upserted `user` rows' counts after the upsert: a row
 * whose count equals this group's increment was inserted now, so its user is new to the issue.
 */
export function newUsers(
  rows: readonly IssueTagRow[],
  after: readonly { issue_id: number | string; value: string; times_seen: number | string }[],
): [number, number][] {
  const added = new Map<string, number>()
  for (const r of rows) if (r[1] === 'user') added.set(`${r[0]}\0${r[2]}`, r[3])
  const out = new Map<number, number>()
  for (const a of after) {
    const id = Number(a.issue_id)
    if (added.get(`${id}\0${a.value}`) === Number(a.times_seen)) out.set(id, (out.get(id) ?? 0) + 1)
  }
  return [...out].sort((a, b) => a[0] - b[0])
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
