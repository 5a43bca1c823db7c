import type pg from 'pg'
import { type HealthHourDelta, HealthHourSums } from '../health-hour-sums.ts'
import type { OutcomeDelta } from '../model.ts'
import { OutcomeCounters } from '../outcome-counters.ts'
import type { IssueTagRow } from '../search-summaries.ts'
import { issueKeyMasks } from '../tag-key-mask.ts'
import { all, type Db, run, transaction } from './db.ts'
import type { PipelinedTx } from './pipelined-tx.ts'

/** One issue's counter increment: issue, events, last seen, and title, culprit, level then. */
export type IssueTouchDelta = [number, number, number, string, string, string]

/** The counters one group commit adds (summed per key), stored as one `counter_deltas` row. */
export interface CounterDeltas {
  touches: IssueTouchDelta[]
  hours: [number, number, number][]
  tags: IssueTagRow[]
  outcomes: OutcomeDelta[]
  /**
   * Release-health rollup increments (summed by queries/release-health.ts, appended with the
   * group's other counters; rows written before they existed have none).
   */
  health?: HealthHourDelta[]
}

/** How often each node folds the pending deltas: a reader sees them at most this late. */
export const FOLD_INTERVAL_MS = 200
/** Delta rows one fold transaction takes (each holds one group commit's counters). */
const FOLD_BATCH = 2000

const isEmpty = (d: CounterDeltas) =>
  d.touches.length +
    d.hours.length +
    d.tags.length +
    d.outcomes.length +
    (d.health?.length ?? 0) ===
  0

/**
 * Appends a group commit's counters inside its ingest transaction: an insert that conflicts
 * with nothing, so concurrent transactions (of this node or another) never wait on a counter
 * row. The row commits or rolls back with the events it counts.
 */
export async function appendDeltas(c: Db, d: CounterDeltas): Promise<void> {
  if (isEmpty(d)) return
  await run(c, 'INSERT INTO counter_deltas (body) VALUES ($1)', [JSON.stringify(d)])
}

/** Sums several groups' deltas per key (touches keep the title of the latest event). */
export function mergeDeltas(list: readonly CounterDeltas[]): CounterDeltas {
  const touches = new Map<number, IssueTouchDelta>()
  const hours = new Map<string, [number, number, number]>()
  const tags = new Map<string, IssueTagRow>()
  const outcomes = new OutcomeCounters()
  const health = new HealthHourSums()
  for (const d of list) {
    for (const t of d.touches) {
      const had = touches.get(t[0])
      if (had === undefined) touches.set(t[0], [...t])
      else {
        had[1] += t[1]
        if (t[2] >= had[2]) touches.set(t[0], [t[0], had[1], t[2], t[3], t[4], t[5]])
      }
    }
    for (const h of d.hours) {
      const k = `${h[0]}\0${h[1]}`
      const had = hours.get(k)
      if (had === undefined) hours.set(k, [...h])
      else had[2] += h[2]
    }
    for (const g of d.tags) {
      const k = `${g[0]}\0${g[1]}\0${g[2]}`
      const had = tags.get(k)
      if (had === undefined) tags.set(k, [...g])
      else {
        had[3] += g[3]
        had[4] = Math.min(had[4], g[4])
        had[5] = Math.max(had[5], g[5])
      }
    }
    for (const o of d.outcomes) outcomes.add(o)
    for (const h of d.health ?? []) health.add(h)
  }
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
  return {
    touches: [...touches.values()].sort((a, b) => a[0] - b[0]),
    hours: [...hours.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]),
    tags: [...tags.values()].sort((a, b) => a[0] - b[0] || cmp(a[1], b[1]) || cmp(a[2], b[2])),
    outcomes: outcomes.sorted(),
    health: health.sorted(),
  }
}

const column = <T, K extends keyof T>(rows: readonly T[], i: K): T[K][] => rows.map((r) => r[i])

/**
 * Writes merged deltas into the counter tables, one statement per table, rows in key order
 * (concurrent folds of several nodes lock them in one order). The title, culprit and level of
 * an issue follow its latest event: a delta older than the row's `last_seen` leaves them.
 * Nothing here waits for an answer: every statement is tracked (pipelined-tx.ts), so they
 * leave in one write with `COMMIT`, and a failed one aborts the transaction, the delete of the
 * delta rows with it (a fold is applied once or not at all).
 */
function applyDeltas(c: PipelinedTx, d: CounterDeltas): void {
  const write = (text: string, params: unknown[]) => c.track(run(c, text, params))
  if (d.touches.length > 0)
    write(
      `UPDATE issues SET times_seen = issues.times_seen + d.n,
         title = CASE WHEN d.ls >= issues.last_seen THEN d.title ELSE issues.title END,
         culprit = CASE WHEN d.ls >= issues.last_seen THEN d.culprit ELSE issues.culprit END,
         level = CASE WHEN d.ls >= issues.last_seen THEN d.level ELSE issues.level END,
         last_seen = GREATEST(issues.last_seen, d.ls)
       FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::text[])
         AS d(id, n, ls, title, culprit, level)
       WHERE issues.id = d.id`,
      [0, 1, 2, 3, 4, 5].map((i) => column(d.touches, i as 0)),
    )
  if (d.hours.length > 0)
    write(
      `INSERT INTO issue_hours (issue_id, hour, events)
       SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[])
       ON CONFLICT (issue_id, hour) DO UPDATE SET events = issue_hours.events + excluded.events`,
      [0, 1, 2].map((i) => column(d.hours, i as 0)),
    )
  if (d.tags.length > 0) {
    // The upsert and the issues' new distinct users in one statement (search-summaries.ts
    // `newUsers`, the same rule in SQL): a `user` row whose count after the upsert is what this
    // fold added was inserted now, so its user is new to the issue. A data-modifying `WITH`
    // runs to completion once whatever the outer statement reads of it.
    write(
      `WITH d (issue_id, key, value, n, fs, ls) AS (
         SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[])),
       up AS (
         INSERT INTO issue_tags (issue_id, key, value, times_seen, first_seen, last_seen)
         SELECT * FROM d
         ON CONFLICT (issue_id, key, value) DO UPDATE SET
           times_seen = issue_tags.times_seen + excluded.times_seen,
           first_seen = LEAST(issue_tags.first_seen, excluded.first_seen),
           last_seen = GREATEST(issue_tags.last_seen, excluded.last_seen)
         RETURNING issue_id, key, value, times_seen)
       UPDATE issues SET users = issues.users + u.n
       FROM (SELECT up.issue_id, COUNT(*) AS n FROM up
               JOIN d ON d.issue_id = up.issue_id AND d.key = up.key AND d.value = up.value
             WHERE up.key = 'user' AND up.times_seen = d.n
             GROUP BY up.issue_id ORDER BY up.issue_id) u
       WHERE issues.id = u.issue_id`,
      [0, 1, 2, 3, 4, 5].map((i) => column(d.tags, i as 0)),
    )
    // The issues' promoted keys (tag-key-mask.ts), rewritten only where one is new.
    const masks = issueKeyMasks(d.tags)
    if (masks.length > 0)
      write(
        `UPDATE issues SET tag_keys = issues.tag_keys | m.bits
         FROM unnest($1::bigint[], $2::int[]) AS m(id, bits)
         WHERE issues.id = m.id AND issues.tag_keys & m.bits <> m.bits`,
        [masks.map((m) => m[0]), masks.map((m) => m[1])],
      )
  }
  const o = d.outcomes
  if (o.length > 0)
    write(
      `INSERT INTO outcomes (project_id, key_id, hour, outcome, reason, category, quantity)
       SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::bigint[])
       ON CONFLICT (project_id, hour, key_id, outcome, reason, category)
       DO UPDATE SET quantity = outcomes.quantity + excluded.quantity`,
      [
        column(o, 'projectId'),
        column(o, 'keyId'),
        column(o, 'at'),
        column(o, 'outcome'),
        column(o, 'reason'),
        column(o, 'category'),
        column(o, 'quantity'),
      ],
    )
  // Columns in SESSION_CATEGORIES order, as HealthHourDelta holds them.
  const h = d.health ?? []
  if (h.length > 0)
    write(
      `INSERT INTO health_hours (project_id, release, environment, hour, sessions,
         healthy, errored, unhandled, abnormal, crashed)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::bigint[],
         $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[])
       ON CONFLICT (project_id, release, environment, hour) DO UPDATE SET
         sessions = health_hours.sessions + excluded.sessions,
         healthy = health_hours.healthy + excluded.healthy,
         errored = health_hours.errored + excluded.errored,
         unhandled = health_hours.unhandled + excluded.unhandled,
         abnormal = health_hours.abnormal + excluded.abnormal,
         crashed = health_hours.crashed + excluded.crashed`,
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => column(h, i as 0)),
    )
}

/**
 * Folds up to `FOLD_BATCH` pending delta rows into the counter tables in one transaction that
 * also deletes them: applied once or not at all, whatever node or crash interrupts it.
 * `skipLocked`: rows another node is folding right now are left to it (the background fold);
 * without it the fold waits for that node's fold to end (a reader that must see every
 * acknowledged event). Two round trips: `BEGIN` and the delete (whose rows decide the rest),
 * then every counter statement with `COMMIT`. `onDelete` is called as the delete is issued
 * (on each attempt): the rows it takes are those committed before then, at least. Returns how
 * many rows it folded.
 */
export function foldDeltas(
  pool: pg.Pool,
  skipLocked: boolean,
  onDelete?: () => void,
): Promise<number> {
  return transaction(pool, async (c) => {
    onDelete?.()
    const rows = await all<{ body: string }>(
      c,
      `DELETE FROM counter_deltas WHERE id IN (SELECT id FROM counter_deltas ORDER BY id
         LIMIT ${FOLD_BATCH} FOR UPDATE${skipLocked ? ' SKIP LOCKED' : ''})
       RETURNING body`,
    )
    if (rows.length === 0) return 0
    applyDeltas(c, mergeDeltas(rows.map((r) => JSON.parse(r.body) as CounterDeltas)))
    return rows.length
  })
}

/**
 * A node's folder of counter deltas: a fold every `FOLD_INTERVAL_MS` (so what another node or
 * a direct SQL reader sees is at most that plus one fold late), and `flush()`, which the
 * store's reads of counters await first, so its own API answers count every acknowledged event.
 */
export class CounterFolder {
  private timer: NodeJS.Timeout | undefined
  private running: Promise<unknown> = Promise.resolve()
  private closed = false
  /**
   * The flush folding now (`deleting`: its first delete has been issued), and the one queued
   * to start after it (see `flush`).
   */
  private flushing: { done: Promise<void>; deleting: boolean } | undefined
  private queued: Promise<void> | undefined

  private readonly pool: pg.Pool

  constructor(pool: pg.Pool) {
    this.pool = pool
  }

  /** Starts the periodic fold (unref'd: it never keeps the process alive). */
  start(): void {
    this.timer = setInterval(() => {
      this.running = this.running.then(() => this.foldAll(true)).catch(() => undefined)
    }, FOLD_INTERVAL_MS)
    this.timer.unref()
  }

  /**
   * Folds until nothing is pending (waiting for other nodes' folds in progress). Concurrent
   * callers share folds: a fold whose delete has not been issued yet (it waits for a pool
   * connection) takes every row committed before the caller asked, so the caller joins it;
   * once issued, it may have taken the pending rows before this caller's events committed, so
   * the caller waits for the next one, which starts when it ends and serves every caller that
   * arrived meanwhile. So each caller still gets a fold whose delete was issued after it
   * asked, and reads asked together (a route's `Promise.all`, a burst) cost one or two folds,
   * not one each (each a transaction that waits for the others' row locks).
   */
  flush(): Promise<void> {
    const running = this.flushing
    if (running === undefined) return this.startFlush()
    if (!running.deleting) return running.done
    this.queued ??= running.done
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined
        return this.startFlush()
      })
    return this.queued
  }

  private startFlush(): Promise<void> {
    const state = { done: Promise.resolve(), deleting: false }
    state.done = this.foldAll(false, () => {
      state.deleting = true
    }).finally(() => {
      if (this.flushing === state) this.flushing = undefined
    })
    this.flushing = state
    return state.done
  }

  private async foldAll(skipLocked: boolean, onDelete?: () => void): Promise<void> {
    while (!this.closed && (await foldDeltas(this.pool, skipLocked, onDelete)) === FOLD_BATCH) {
      // a full batch: more may be pending
    }
  }

  /** Stops the periodic fold and folds what is left (best effort: another node folds it too). */
  async close(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer)
    await this.running
    await this.foldAll(true).catch(() => undefined)
    this.closed = true
  }
}
