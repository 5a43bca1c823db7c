import { type EventTriage, type IssueOnEvent, triageOnEvent } from './issue-rules.ts'
import type { EventToWrite } from './types.ts'

/** The storage steps the grouping upsert needs; each backend implements them in its SQL. */
export interface GroupingIo {
  /** The issue the (project, hash) belongs to, with its triage columns, locked for update. */
  findHash(e: EventToWrite): Promise<(IssueOnEvent & { issueId: number }) | undefined>
  /** Creates the issue of a new hash; undefined when another writer claimed the hash first. */
  createIssue(e: EventToWrite): Promise<number | undefined>
  /** Counts the event on an existing issue and stores its new triage state. */
  touchIssue(issueId: number, e: EventToWrite, t: EventTriage): Promise<void>
}

/** Which issue an event went to, and what that did to it. */
export interface GroupingResult {
  issueId: number
  issueCreated: boolean
  regressed: boolean
}

/**
 * The grouping rule of every backend: an event joins the issue of its (project, hash); a new
 * hash creates an issue. Where writers run concurrently (PostgreSQL) the creation can lose a
 * race to another transaction's: then the hash is read again and the event joins the winner's
 * issue, so one hash never gets two issues and no request fails for it. Joining an existing
 * issue applies the regression and ignore rules of issue-rules.ts.
 */
export async function upsertGroup(io: GroupingIo, e: EventToWrite): Promise<GroupingResult> {
  let found = await io.findHash(e)
  if (found === undefined) {
    const created = await io.createIssue(e)
    if (created !== undefined) return { issueId: created, issueCreated: true, regressed: false }
    found = await io.findHash(e)
    if (found === undefined) throw new Error(`grouping hash ${e.hash} claimed but not readable`)
  }
  const t = triageOnEvent(found, e.received)
  await io.touchIssue(found.issueId, e, t)
  return { issueId: found.issueId, issueCreated: false, regressed: t.regressed }
}

/**
 * Applies several events to one issue in order, exactly as writing them one by one would: each
 * sees the count and triage state the previous one left. A backend that writes a group's
 * events of one hash with a single `UPDATE` (PostgreSQL) uses it to keep the rules identical.
 */
export function foldOnIssue(
  issue: IssueOnEvent,
  received: readonly number[],
): { state: IssueOnEvent; regressed: boolean[] } {
  let state = issue
  const regressed = received.map((at) => {
    const t = triageOnEvent(state, at)
    state = {
      status: t.status,
      forReview: t.forReview,
      ignoreUntil: t.ignoreUntil,
      ignoreUntilSeen: t.ignoreUntilSeen,
      timesSeen: state.timesSeen + 1,
    }
    return t.regressed
  })
  return { state, regressed }
}
