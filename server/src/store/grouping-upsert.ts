import { type IssueOnEvent, type TriageState, triageOnEvent } from './issue-rules.ts'
import type { EventToWrite, EventWriteResult } from './model.ts'

/** An issue found for a (project, hash), with its triage columns and count so far. */
export type FoundIssue = IssueOnEvent & {
  issueId: number
  /** The grouping version that recorded the hash it was found by (absent: just created). */
  hashVersion?: string
}

/**
 * What a run of events of one hash does to its existing issue, written with one `UPDATE`:
 * `count` more events, `last_seen` at least `lastSeen`, title, culprit, level, type and value
 * (the issue's metadata) of `last`, and the triage state the rules left.
 */
export interface IssueTouch {
  issueId: number
  count: number
  lastSeen: number
  last: EventToWrite
  state: TriageState
}

/**
 * The text an issue takes from its latest event, in the order both backends write it: title,
 * culprit, level, type and value (the issue's metadata follows its latest event as its title
 * does; Sentry updates both when an event joins an issue).
 */
export type IssueText = [string, string, string, string | null, string | null]

/** {@link IssueText} of an event. */
export const issueText = (e: EventToWrite): IssueText => [
  e.title,
  e.culprit,
  e.level,
  e.type,
  e.value,
]

/**
 * The parameters of both backends' issue `UPDATE` for one touch, in their shared order
 * (times_seen += count, last_seen, the {@link IssueText}, status, for_review, ignore_until,
 * ignore_until_seen, id), so the column order is written once.
 */
export const issueTouchParams = (
  t: IssueTouch,
): [number, number, ...IssueText, string, number, number | null, number | null, number] => [
  t.count,
  t.lastSeen,
  ...issueText(t.last),
  t.state.status,
  t.state.forReview ? 1 : 0,
  t.state.ignoreUntil,
  t.state.ignoreUntilSeen,
  t.issueId,
]

/** The storage steps of the grouping rule, as PostgreSQL runs them (each a statement). */
export interface GroupingIo {
  /**
   * The issue the (project, `hash`) belongs to, locked for update where the backend locks;
   * `hash` is the event's own, or its `previousHash`.
   */
  findHash(e: EventToWrite, hash: string): Promise<FoundIssue | undefined>
  /** Creates the issue of a new hash; undefined when another writer claimed the hash first. */
  createIssue(e: EventToWrite): Promise<number | undefined>
  /**
   * Records the event's hash for an existing issue (the one its `previousHash` found); false
   * when another writer claimed the hash first.
   */
  claimHash(e: EventToWrite, issueId: number): Promise<boolean>
  /** Writes what a run of events did to an existing issue. */
  touchIssue(t: IssueTouch): Promise<void>
}

/**
 * The same steps, synchronous: SQLite runs them inside the writer thread's transaction with
 * prepared statements, where awaiting a promise per statement would cost more than the
 * statement (better-sqlite3 is synchronous).
 */
export interface SyncGroupingIo {
  findHash(e: EventToWrite, hash: string): FoundIssue | undefined
  createIssue(e: EventToWrite): number | undefined
  claimHash(e: EventToWrite, issueId: number): boolean
  touchIssue(t: IssueTouch): void
}

/** Which issue an event went to, and what that did to it. */
export interface GroupingResult {
  issueId: number
  issueCreated: boolean
  regressed: boolean
}

/** One storage step the rule asks the backend for. */
type GroupingStep =
  | { op: 'find'; e: EventToWrite; hash: string }
  | { op: 'create'; e: EventToWrite }
  | { op: 'claim'; e: EventToWrite; issueId: number }
  | { op: 'touch'; touch: IssueTouch }

/** The backend's answer to the last step: `found` after a find, `created` after a create. */
interface GroupingAnswer {
  found?: FoundIssue | undefined
  created?: number | undefined
  claimed?: boolean
}

/** The triage state of an issue its first event just created (the schema's defaults). */
const NEW_ISSUE: IssueOnEvent = {
  status: 'unresolved',
  forReview: true,
  ignoreUntil: null,
  ignoreUntilSeen: null,
  timesSeen: 1,
}

/**
 * The grouping rule of every backend, written once as the sequence of storage steps it needs
 * (a generator: `upsertGroup` runs it with awaited statements, `upsertGroupSync` with
 * synchronous ones, so neither backend keeps a copy of the decisions).
 *
 * Events of one (project, hash), in order, none a duplicate: they join the hash's issue; a new
 * hash creates an issue with its first event. Where writers run concurrently (PostgreSQL) the
 * creation can lose a race to another transaction's: then the hash is read again and the
 * events join the winner's issue, so one hash never gets two issues and no request fails for
 * it. The events joining an existing issue are folded into one touch (`foldOnIssue`): exactly
 * what writing them one by one gives, with one `UPDATE` per hash instead of one per event.
 *
 * A hash without an issue whose first event carries a `previousHash` (what an earlier grouping
 * rule gave it) with an issue recorded by an earlier grouping version is claimed for that issue
 * instead of creating one: an issue stored before a grouping change keeps its events. A
 * previous hash recorded by the event's own version is no earlier rule's (v2 writes v1's hash
 * for an event without source lines) and is not followed: it would merge the errors v2 splits. Losing that claim to another writer (who
 * created or claimed the hash meanwhile) reads the hash again, as after a lost creation.
 */
function* groupingSteps(
  run: readonly EventToWrite[],
): Generator<GroupingStep, GroupingResult[], GroupingAnswer> {
  const first = run[0]
  if (first === undefined) return []
  const results: GroupingResult[] = []
  let rest = run
  let found = (yield { op: 'find', e: first, hash: first.hash }).found
  if (found === undefined && first.previousHash !== undefined) {
    const before = (yield { op: 'find', e: first, hash: first.previousHash }).found
    if (before !== undefined && before.hashVersion !== first.groupingVersion) {
      const claimed = (yield { op: 'claim', e: first, issueId: before.issueId }).claimed
      found = claimed === true ? before : (yield { op: 'find', e: first, hash: first.hash }).found
    }
  }
  if (found === undefined) {
    const created = (yield { op: 'create', e: first }).created
    if (created !== undefined) {
      results.push({ issueId: created, issueCreated: true, regressed: false })
      found = { ...NEW_ISSUE, issueId: created }
      rest = run.slice(1)
    } else {
      found = (yield { op: 'find', e: first, hash: first.hash }).found
      if (found === undefined)
        throw new Error(`grouping hash ${first.hash} claimed but not readable`)
    }
  }
  const last = rest[rest.length - 1]
  if (last === undefined) return results
  let lastSeen = last.received
  for (const e of rest) if (e.received > lastSeen) lastSeen = e.received
  const { state, regressed } = foldOnIssue(
    found,
    rest.map((e) => e.received),
  )
  const issueId = found.issueId
  yield { op: 'touch', touch: { issueId, count: rest.length, lastSeen, last, state } }
  for (const r of regressed) results.push({ issueId, issueCreated: false, regressed: r })
  return results
}

/** Groups a run of one hash's new events (see `groupingSteps`), one result per event. */
export async function upsertGroup(
  io: GroupingIo,
  run: readonly EventToWrite[],
): Promise<GroupingResult[]> {
  const steps = groupingSteps(run)
  let step = steps.next({})
  while (step.done !== true) {
    const s = step.value
    if (s.op === 'find') step = steps.next({ found: await io.findHash(s.e, s.hash) })
    else if (s.op === 'create') step = steps.next({ created: await io.createIssue(s.e) })
    else if (s.op === 'claim') step = steps.next({ claimed: await io.claimHash(s.e, s.issueId) })
    else {
      await io.touchIssue(s.touch)
      step = steps.next({})
    }
  }
  return step.value
}

/** `upsertGroup` for a backend whose statements are synchronous (SQLite). */
export function upsertGroupSync(
  io: SyncGroupingIo,
  run: readonly EventToWrite[],
): GroupingResult[] {
  const steps = groupingSteps(run)
  let step = steps.next({})
  while (step.done !== true) {
    const s = step.value
    if (s.op === 'find') step = steps.next({ found: io.findHash(s.e, s.hash) })
    else if (s.op === 'create') step = steps.next({ created: io.createIssue(s.e) })
    else if (s.op === 'claim') step = steps.next({ claimed: io.claimHash(s.e, s.issueId) })
    else {
      io.touchIssue(s.touch)
      step = steps.next({})
    }
  }
  return step.value
}

/**
 * An event's result before grouping decides it: a duplicate until its run is written (both
 * backends start every event of a group here and overwrite the new ones).
 */
export const duplicateResult = (e: EventToWrite): EventWriteResult => ({
  eventId: e.eventId,
  issueId: 0,
  duplicate: true,
  issueCreated: false,
  regressed: false,
})

/**
 * Splits a group commit's events into what grouping needs. An event is new when its id was
 * neither stored before (`isStored` asks the database) nor seen earlier in this group (the
 * first copy is the one stored; Relay: a resend is `duplicate`). The new ones come in runs of
 * one (project, hash), each run in arrival order, as indexes into `events`. Runs come in
 * first-arrival order, or sorted by (project, hash) with `sorted`: the lock order concurrent
 * writers need (PostgreSQL).
 */
export function hashRuns(
  events: readonly EventToWrite[],
  isStored: (e: EventToWrite) => boolean,
  sorted = false,
): number[][] {
  const ids = new Set<string>()
  const runs = new Map<string, number[]>()
  events.forEach((e, i) => {
    const id = `${e.projectId}\0${e.eventId}`
    if (ids.has(id)) return
    ids.add(id)
    if (isStored(e)) return
    const k = `${e.projectId}\0${e.hash}`
    const r = runs.get(k)
    if (r === undefined) runs.set(k, [i])
    else r.push(i)
  })
  if (!sorted) return [...runs.values()]
  return [...runs.values()].sort((a, b) => {
    const x = events[a[0] as number] as EventToWrite
    const y = events[b[0] as number] as EventToWrite
    return x.projectId - y.projectId || (x.hash < y.hash ? -1 : x.hash > y.hash ? 1 : 0)
  })
}

/**
 * Applies several events to one issue in order, exactly as writing them one by one would: each
 * sees the count and triage state the previous one left.
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
