import {
  decideAlerts,
  type FrequencyCheck,
  frequencyChecks,
  frequencyDecision,
  type RuleConditionsRow,
} from './alert-decisions.ts'
import type { AlertDecision } from './alert-store.ts'
import type { HealthHourSums } from './health-hour-sums.ts'
import type { WriteUnit, WriteUnitResult } from './ingest-store.ts'
import { IssueSummaries } from './issue-summaries.ts'
import type { EventToWrite, EventWriteResult, OutcomeDelta } from './model.ts'
import { eventOutcome, OutcomeCounters, withOutcomes } from './outcome-counters.ts'
import { checkInSteps } from './queries/check-ins.ts'
import { healthSteps, healthSumsFor } from './queries/release-health.ts'
import { overQuotaOutcome, type UnitQuota } from './quota-rules.ts'
import { SearchSummaries } from './search-summaries.ts'
import type { Dialect, Steps } from './sql/port.ts'

/** What the backend's quota step and event write did with one unit's events. */
export interface UnitWrite {
  /** The unit's admitted events in unit order, each with what writing it did. */
  written: { e: EventToWrite; r: EventWriteResult }[]
  /** The quota the unit was charged against (undefined: its project has none). */
  quota?: UnitQuota
}

/** The counters of one group commit, summed per key, for the backend to write. */
export interface GroupCounters {
  outcomes: OutcomeDelta[]
  summaries: IssueSummaries
  search: SearchSummaries
  /** Release-health rollup sums, where the backend defers them (PostgreSQL; SQLite: none). */
  health: HealthHourSums | undefined
}

/**
 * The storage steps of one group commit's transaction that differ per backend (SQLite runs
 * them synchronously with prepared statements in its writer thread, PostgreSQL awaits them on
 * one pooled connection): the quota step with the events' write, one more event (a check-in's
 * failure), shared `Steps`, the alert rules and counts, and the writes of what was decided.
 */
export interface CommitIo {
  /** Charges each unit's events to its project's quota and writes the admitted ones. */
  units(units: readonly WriteUnit[]): UnitWrite[]
  /** Writes one more event (no quota: a check-in's failure event). */
  event(e: EventToWrite): EventWriteResult
  /** Runs rules written once as `Steps` (release health, check-ins). */
  steps(s: Steps<unknown>): unknown
  /** The live alert rules of these projects. */
  rules(projectIds: readonly number[]): RuleConditionsRow[]
  /** Events of the check's issue since its window start, counted up to threshold + 1. */
  count(check: FrequencyCheck): number
  /** Writes alert decisions to the outbox (each trigger once). */
  triggers(decisions: readonly AlertDecision[], now: number): void
  /** Writes the group's counters (outcomes, issue summaries, search rows). */
  counters(c: GroupCounters): void
}

/** `CommitIo` with every step awaited (PostgreSQL). */
export type AsyncCommitIo = {
  [K in keyof CommitIo]: (...a: Parameters<CommitIo[K]>) => Promise<ReturnType<CommitIo[K]>>
}

/** One step the transaction asks its backend for. */
type CommitOp =
  | { op: 'units'; units: readonly WriteUnit[] }
  | { op: 'event'; e: EventToWrite }
  | { op: 'steps'; steps: Steps<unknown> }
  | { op: 'rules'; projectIds: number[] }
  | { op: 'count'; check: FrequencyCheck }
  | { op: 'triggers'; decisions: AlertDecision[]; now: number }
  | { op: 'counters'; counters: GroupCounters }

type CommitSteps<T> = Generator<CommitOp, T, unknown>

/** Asks the backend for one step; the cast is where each answer's type is asserted. */
function* ask<T>(op: CommitOp): CommitSteps<T> {
  return (yield op) as T
}

/** The project of a unit: one request, so one project for all its items. */
export const unitProject = (u: WriteUnit | undefined): number =>
  u?.events[0]?.projectId ?? u?.checkIns?.[0]?.projectId ?? 0

/**
 * One group commit's transaction, written once for both backends: the quota step and the
 * events of every unit, then per unit its outcomes (over quota or admitted), release health
 * and check-ins (a failing check-in writes its error event), then the alert decisions of the
 * stored events, then the counters summed over the whole group (one write per key, not per
 * item; on PostgreSQL the release-health rollups are summed over the group too and appended as
 * a counter delta). Returns each unit's results, the summed outcomes on the first (outcome-counters.ts).
 */
function* commitSteps(
  dialect: Dialect,
  units: readonly WriteUnit[],
  now: number,
): CommitSteps<WriteUnitResult[]> {
  const outcomes = new OutcomeCounters()
  const summaries = new IssueSummaries()
  const search = new SearchSummaries()
  const health = healthSumsFor(dialect)
  const counted = (e: EventToWrite, r: EventWriteResult): EventWriteResult => {
    outcomes.add(eventOutcome(e, r))
    summaries.add(e, r)
    search.add(e, r)
    return r
  }
  const written = yield* ask<UnitWrite[]>({ op: 'units', units })
  const results: WriteUnitResult[] = []
  for (const [n, u] of units.entries()) {
    const w = written[n]
    const events = (w?.written ?? []).map(({ e, r }) => counted(e, r))
    for (const o of u.outcomes) outcomes.add(o)
    const refused = w?.quota?.refused ?? 0
    const first = u.events[0]
    if (refused > 0 && first !== undefined) outcomes.add(overQuotaOutcome(first, refused))
    else for (const o of u.outcomesIfAdmitted ?? []) outcomes.add(o)
    yield* ask({ op: 'steps', steps: healthSteps(dialect, u, health) })
    for (const ci of u.checkIns ?? []) {
      const failure = yield* ask<EventToWrite | undefined>({
        op: 'steps',
        steps: checkInSteps(dialect, ci, (o) => outcomes.add(o)),
      })
      if (failure !== undefined)
        events.push(counted(failure, yield* ask<EventWriteResult>({ op: 'event', e: failure })))
    }
    results.push(w?.quota === undefined ? { events } : { events, quota: w.quota })
  }
  yield* alertSteps(
    results.flatMap((r, k) => r.events.map((e) => ({ projectId: unitProject(units[k]), r: e }))),
    now,
  )
  const sums = outcomes.sorted()
  yield* ask({ op: 'counters', counters: { outcomes: sums, summaries, search, health } })
  return withOutcomes(results, sums)
}

/** The alert outbox rows of the group's stored events (alert-decisions.ts). */
function* alertSteps(
  stored: { projectId: number; r: EventWriteResult }[],
  now: number,
): CommitSteps<void> {
  const live = stored.filter((s) => !s.r.duplicate)
  if (live.length === 0) return
  const projectIds = [...new Set(live.map((s) => s.projectId))]
  const rules = yield* ask<RuleConditionsRow[]>({ op: 'rules', projectIds })
  if (rules.length === 0) return
  const decisions = decideAlerts(rules, live)
  for (const check of frequencyChecks(rules, live, decisions, now)) {
    const f = frequencyDecision(check, yield* ask<number>({ op: 'count', check }), now)
    if (f !== undefined) decisions.push(f)
  }
  if (decisions.length > 0) yield* ask({ op: 'triggers', decisions, now })
}

/** The backend's answer to one step (a promise from an `AsyncCommitIo`). */
function answer(io: CommitIo | AsyncCommitIo, op: CommitOp): unknown {
  switch (op.op) {
    case 'units':
      return io.units(op.units)
    case 'event':
      return io.event(op.e)
    case 'steps':
      return io.steps(op.steps)
    case 'rules':
      return io.rules(op.projectIds)
    case 'count':
      return io.count(op.check)
    case 'triggers':
      return io.triggers(op.decisions, op.now)
    case 'counters':
      return io.counters(op.counters)
  }
}

/** Runs a group commit's transaction body with synchronous steps (SQLite's writer thread). */
export function runCommitSync(
  io: CommitIo,
  dialect: Dialect,
  units: readonly WriteUnit[],
  now: number,
): WriteUnitResult[] {
  const s = commitSteps(dialect, units, now)
  let r = s.next()
  while (r.done !== true) r = s.next(answer(io, r.value))
  return r.value
}

/** Runs a group commit's transaction body with awaited steps (PostgreSQL). */
export async function runCommit(
  io: AsyncCommitIo,
  dialect: Dialect,
  units: readonly WriteUnit[],
  now: number,
): Promise<WriteUnitResult[]> {
  const s = commitSteps(dialect, units, now)
  let r = s.next()
  while (r.done !== true) r = s.next(await answer(io, r.value))
  return r.value
}
