import type pg from 'pg'
import type { IssueText } from '../grouping-upsert.ts'
import type { HealthHourDelta } from '../health-hour-sums.ts'
import { HOUR } from '../hours.ts'
import type { OutcomeDelta } from '../model.ts'
import type { IssueTagRow } from '../search-summaries.ts'
import { TAG_KEY_BITS } from '../tag-key-mask.ts'
import { all, type Db, run, transaction } from './db.ts'

/**
 * One issue's counter increment: issue, events, last seen, and the latest event's text then
 * (rows written before type and value were added hold only title, culprit and level).
 */
export type IssueTouchDelta = [number, number, number, ...IssueText]

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

/** How often each node asks for a fold turn: a direct SQL reader sees deltas about this late. */
export const FOLD_INTERVAL_MS = 200
/**
 * A node's periodic fold runs only when no node's periodic fold started this long before
 * (`foldTurn`): about one fold per interval in the whole cluster. Below the interval, so one
 * node whose timer or pool ran a little late still folds every time.
 */
const FOLD_TURN_MS = 150
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

/** `TAG_KEY_BITS` as SQL rows (key, bit): the fold's rule for `issues.tag_keys` is that map. */
const TAG_KEY_ROWS = [...TAG_KEY_BITS]
  .map(([key, bit]) => `('${key.replaceAll("'", "''")}', ${bit})`)
  .join(', ')

/**
 * The fold as one statement: it deletes up to `FOLD_BATCH` pending rows and adds what their
 * bodies hold to the counter tables, summed per key by PostgreSQL (the bodies are never sent
 * to the node). The rules are those of the ingest transaction's counters:
 * - an issue's `times_seen` grows by its events, `last_seen` is the latest, and its title,
 *   culprit, level, type and value follow its latest event (on a tie of `last_seen`, the later
 *   delta row, then the later entry of a row), unless the row already saw a later one (an entry
 *   of six, written before type and value were, leaves those two);
 * - `issue_tags` rows sum their counts and keep the earliest first and latest last seen; a
 *   `user` row whose count after the upsert is what this fold added was inserted now, so its
 *   user is new to the issue (`search-summaries.ts` `newUsers`, the same rule). What the fold
 *   added is looked up in one `jsonb` object keyed by issue and user, not joined: the planner
 *   cannot estimate a `WITH` query's rows and joined the two as a nested loop, every user row
 *   against every other (210 of a fold's 300 ms with 558 issues' users);
 * - an issue's promoted tag keys (`tag-key-mask.ts`) are OR-ed into `tag_keys`;
 * - hours, outcomes (their time truncated to the hour) and release-health rollups are summed.
 * Every counter table is written in key order (`ORDER BY` of each insert), so concurrent folds
 * of several nodes lock rows in one order; the issues' changes are one `UPDATE` (a statement
 * may change a row once). Numbers are read as JSON numbers cast to `bigint` (rounded, as the
 * bound parameters of the ingest path are). A body whose text `JSON.stringify` escaped as
 * U+0000 or a lone surrogate (client strings may hold them; PostgreSQL's JSON functions refuse
 * both) is read with U+FFFD there, what the driver makes of the same string bound as a
 * parameter; an escaped backslash before "u0000" stays text. Exported for the test of its
 * plan (counter-deltas.test.ts).
 */
export const foldStatement = (skipLocked: boolean): string => `
WITH taken AS (
  DELETE FROM counter_deltas WHERE id IN (SELECT id FROM counter_deltas ORDER BY id
    LIMIT ${FOLD_BATCH} FOR UPDATE${skipLocked ? ' SKIP LOCKED' : ''})
  RETURNING id, (CASE WHEN strpos(body, '\\u') = 0 THEN body
    ELSE regexp_replace(body, '(?<!\\\\)((?:\\\\\\\\)*)\\\\u(0000|[dD][89a-fA-F][0-9a-fA-F]{2})',
      '\\1\\\\ufffd', 'g') END)::jsonb AS b),
touch AS (
  SELECT (e->0)::bigint AS id, sum((e->1)::bigint) AS n, max((e->2)::bigint) AS ls,
    (array_agg(e ORDER BY (e->2)::bigint DESC, t.id DESC, x.k DESC))[1] AS latest
  FROM taken t, jsonb_array_elements(t.b->'touches') WITH ORDINALITY AS x(e, k)
  GROUP BY 1),
tag AS (
  SELECT (e->0)::bigint AS issue_id, e->>1 AS key, e->>2 AS value, sum((e->3)::bigint) AS n,
    min((e->4)::bigint) AS fs, max((e->5)::bigint) AS ls
  FROM taken t, jsonb_array_elements(t.b->'tags') AS e
  GROUP BY 1, 2, 3),
up AS (
  INSERT INTO issue_tags (issue_id, key, value, times_seen, first_seen, last_seen)
  SELECT issue_id, key, value, n, fs, ls FROM tag ORDER BY issue_id, key, value
  ON CONFLICT (issue_id, key, value) DO UPDATE SET
    times_seen = issue_tags.times_seen + excluded.times_seen,
    first_seen = LEAST(issue_tags.first_seen, excluded.first_seen),
    last_seen = GREATEST(issue_tags.last_seen, excluded.last_seen)
  RETURNING issue_id, key, value, times_seen),
added AS MATERIALIZED (
  SELECT jsonb_object_agg(issue_id || ':' || value, n) AS by_user FROM tag WHERE key = 'user'),
users AS (
  SELECT up.issue_id AS id, count(*) AS n FROM up, added
  WHERE up.key = 'user' AND up.times_seen = (added.by_user ->> (up.issue_id || ':' || up.value))::bigint
  GROUP BY up.issue_id),
masks AS (
  SELECT g.issue_id AS id, bit_or(m.bit) AS bits
  FROM (SELECT DISTINCT issue_id, key FROM tag) g
  JOIN (VALUES ${TAG_KEY_ROWS}) AS m(key, bit) ON m.key = g.key
  GROUP BY g.issue_id),
changed AS (
  SELECT COALESCE(t.id, u.id, m.id) AS id, t.n, t.ls, t.latest->>3 AS title,
    t.latest->>4 AS culprit, t.latest->>5 AS level, jsonb_array_length(t.latest) >= 8 AS meta,
    t.latest->>6 AS type, t.latest->>7 AS value,
    COALESCE(u.n, 0) AS users, COALESCE(m.bits, 0) AS bits
  FROM touch t
  FULL JOIN users u ON u.id = t.id
  FULL JOIN masks m ON m.id = COALESCE(t.id, u.id)),
issue_rows AS (
  UPDATE issues SET times_seen = issues.times_seen + COALESCE(d.n, 0),
    title = CASE WHEN d.ls >= issues.last_seen THEN d.title ELSE issues.title END,
    culprit = CASE WHEN d.ls >= issues.last_seen THEN d.culprit ELSE issues.culprit END,
    level = CASE WHEN d.ls >= issues.last_seen THEN d.level ELSE issues.level END,
    type = CASE WHEN d.meta AND d.ls >= issues.last_seen THEN d.type ELSE issues.type END,
    value = CASE WHEN d.meta AND d.ls >= issues.last_seen THEN d.value ELSE issues.value END,
    last_seen = GREATEST(issues.last_seen, d.ls),
    users = issues.users + d.users,
    tag_keys = issues.tag_keys | d.bits
  FROM (SELECT * FROM changed ORDER BY id) d
  WHERE issues.id = d.id
    AND (d.n IS NOT NULL OR d.users > 0 OR issues.tag_keys & d.bits <> d.bits)
  RETURNING 1),
hour_rows AS (
  INSERT INTO issue_hours (issue_id, hour, events)
  SELECT (e->0)::bigint, (e->1)::bigint, sum((e->2)::bigint)
  FROM taken t, jsonb_array_elements(t.b->'hours') AS e
  GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (issue_id, hour) DO UPDATE SET events = issue_hours.events + excluded.events
  RETURNING 1),
outcome_rows AS (
  INSERT INTO outcomes (project_id, key_id, hour, outcome, reason, category, quantity)
  SELECT (e->'projectId')::bigint, (e->'keyId')::bigint,
    floor((e->'at')::numeric / ${HOUR})::bigint * ${HOUR},
    e->>'outcome', e->>'reason', e->>'category', sum((e->'quantity')::bigint)
  FROM taken t, jsonb_array_elements(t.b->'outcomes') AS e
  GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 3, 2, 4, 5, 6
  ON CONFLICT (project_id, hour, key_id, outcome, reason, category)
  DO UPDATE SET quantity = outcomes.quantity + excluded.quantity
  RETURNING 1),
health_rows AS (
  INSERT INTO health_hours (project_id, release, environment, hour, sessions,
    healthy, errored, unhandled, abnormal, crashed)
  SELECT (e->0)::bigint, e->>1, e->>2, (e->3)::bigint, sum((e->4)::bigint),
    sum((e->5)::bigint), sum((e->6)::bigint), sum((e->7)::bigint), sum((e->8)::bigint),
    sum((e->9)::bigint)
  FROM taken t, jsonb_array_elements(COALESCE(t.b->'health', '[]'::jsonb)) AS e
  GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (project_id, release, environment, hour) DO UPDATE SET
    sessions = health_hours.sessions + excluded.sessions,
    healthy = health_hours.healthy + excluded.healthy,
    errored = health_hours.errored + excluded.errored,
    unhandled = health_hours.unhandled + excluded.unhandled,
    abnormal = health_hours.abnormal + excluded.abnormal,
    crashed = health_hours.crashed + excluded.crashed
  RETURNING 1)
SELECT COUNT(*)::int AS n FROM taken`

/** The fold's two texts (background folds skip rows another node holds; reads wait), and names. */
const FOLD_SKIP_LOCKED = [foldStatement(true), 'fold_skip_locked'] as const
const FOLD_WAITING = [foldStatement(false), 'fold'] as const

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
  const [text, name] = skipLocked ? FOLD_SKIP_LOCKED : FOLD_WAITING
  return transaction(pool, async (c) => {
    onDelete?.()
    const r = await all<{ n: number }>(c, text, [], name)
    return r[0]?.n ?? 0
  })
}

/**
 * Whether this node's periodic fold may run now: it stamps the cluster's one `fold_turns` row
 * with PostgreSQL's clock unless some node's periodic fold started within `FOLD_TURN_MS`
 * (migration 016). An autocommit statement, not part of the fold's transaction, so a long fold
 * (a backlog) never makes the others wait for the row: past `FOLD_TURN_MS` the next turn
 * starts a fold beside it, over other rows (`SKIP LOCKED`). A stamp more than a second ahead of
 * the clock (PostgreSQL's clock was set back) gives the turn too, so the folds never stop.
 */
export async function foldTurn(pool: pg.Pool): Promise<boolean> {
  const changed = await run(
    pool,
    `UPDATE fold_turns SET started = clock_timestamp()
     WHERE started <= clock_timestamp() - $1 * interval '1 millisecond'
       OR started > clock_timestamp() + interval '1 second'`,
    [FOLD_TURN_MS],
    'fold_turn',
  )
  return changed === 1
}

/**
 * A node's folder of counter deltas: every `FOLD_INTERVAL_MS` it asks for a fold turn and folds
 * when given one (`foldTurn`: about one periodic fold per interval across every node, so each
 * fold sums what all nodes wrote meanwhile; what a direct SQL reader sees is at most about two
 * intervals plus one fold late), and `flush()`, which the store's reads of counters await first,
 * so its own API answers count every acknowledged event.
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

  /**
   * What this node folded since it started, for `/metrics` (`StoreUsage.fold`): fold
   * transactions run on its timer's turns (`periodic`) and for reads (`read`), the delta rows
   * they took (one per group commit) and the seconds they took.
   */
  readonly stats = { periodic: 0, read: 0, rows: 0, seconds: 0 }

  constructor(pool: pg.Pool) {
    this.pool = pool
  }

  /** Starts the periodic fold (unref'd: it never keeps the process alive). */
  start(): void {
    this.timer = setInterval(() => {
      this.running = this.running.then(() => this.periodicFold()).catch(() => undefined)
    }, FOLD_INTERVAL_MS)
    this.timer.unref()
  }

  private async periodicFold(): Promise<void> {
    if (this.closed || !(await foldTurn(this.pool))) return
    await this.foldAll(true, 'periodic')
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
    state.done = this.foldAll(false, 'read', () => {
      state.deleting = true
    }).finally(() => {
      if (this.flushing === state) this.flushing = undefined
    })
    this.flushing = state
    return state.done
  }

  /** Folds until a batch is not full; `kind`: whose folds they are in `stats` (close's: none). */
  private async foldAll(
    skipLocked: boolean,
    kind: 'periodic' | 'read' | undefined,
    onDelete?: () => void,
  ): Promise<void> {
    for (;;) {
      if (this.closed) return
      const t0 = performance.now()
      const n = await foldDeltas(this.pool, skipLocked, onDelete)
      this.stats.seconds += (performance.now() - t0) / 1000
      this.stats.rows += n
      if (kind !== undefined) this.stats[kind]++
      // A full batch: more may be pending.
      if (n !== FOLD_BATCH) return
    }
  }

  /** Stops the periodic fold and folds what is left (best effort: another node folds it too). */
  async close(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer)
    await this.running
    await this.foldAll(true, undefined).catch(() => undefined)
    this.closed = true
  }
}
