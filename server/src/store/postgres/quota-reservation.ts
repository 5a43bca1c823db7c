import type { Reservation } from '../quota-rules.ts'
import type { Db } from './db.ts'
import { first, run } from './db.ts'

/**
 * Reserves `n` events of a project's quota with one autocommit statement, before the ingest
 * transaction: the `quota_windows` row is locked for this statement only, so concurrent group
 * commits of one project no longer wait for each other's whole transaction (measured in
 * docs/several-nodes.md). The statement applies chargeQuota's rule (quota-rules.ts; the unit
 * test quota-reservation.test.ts runs both side by side): a window starts with the first event
 * after the previous one ended, a changed length opens a new window, and it grants
 * `min(n, limit - used)`. The window row is read with `FOR UPDATE` in the statement itself:
 * after waiting for the lock, READ COMMITTED returns the row's newest version, so the grant
 * is computed on what the previous holder committed.
 */
const RESERVE = `
WITH q AS (SELECT events, window_seconds FROM project_quotas WHERE project_id = $1),
cur AS (SELECT window_start, window_seconds, used, limited FROM quota_windows
        WHERE project_id = $1 FOR UPDATE),
g AS (SELECT q.events AS lim, q.window_seconds AS secs,
        CASE WHEN o.opens THEN $2::bigint ELSE cur.window_start END AS start,
        CASE WHEN o.opens THEN 0 ELSE cur.used END AS base,
        CASE WHEN o.opens THEN 0 ELSE cur.limited END AS was_limited
      FROM q, cur, LATERAL (SELECT cur.window_seconds <> q.window_seconds
        OR $2::bigint >= cur.window_start + q.window_seconds * 1000 AS opens) o),
r AS (SELECT g.*, LEAST($3::bigint, GREATEST(0, g.lim - g.base)) AS granted FROM g),
upd AS (UPDATE quota_windows w SET window_start = r.start, window_seconds = r.secs,
          used = r.base + r.granted,
          limited = r.was_limited
        FROM r WHERE w.project_id = $1
        RETURNING r.granted, w.window_start, w.window_seconds, w.limited)
SELECT (SELECT count(*) FROM q)::int AS quotas, upd.* FROM (SELECT 1) AS one LEFT JOIN upd ON true`

/**
 * A project with a quota but no window row yet gets a placeholder whose length (-1) differs
 * from every quota's, so the reservation that follows opens a window at its own time.
 */
const PLACEHOLDER = `
INSERT INTO quota_windows (project_id, window_start, window_seconds, used, limited)
SELECT project_id, 0, -1, 0, 0 FROM project_quotas WHERE project_id = $1
ON CONFLICT (project_id) DO NOTHING`

interface ReserveRow {
  quotas: number
  granted: number | null
  window_start: number | null
  window_seconds: number | null
  limited: number | null
}

/**
 * Reserves up to `n` events of `projectId`'s quota at `now` (ms); undefined when the project
 * has no quota. One statement in the steady state; the first reservation of a project adds
 * the placeholder insert.
 */
export async function reserveQuota(
  db: Db,
  projectId: number,
  now: number,
  n: number,
): Promise<Reservation | undefined> {
  for (;;) {
    const r = await reserveQuotaOnce(db, projectId, now, n)
    if (r !== 'placeholder') return r
    await run(db, PLACEHOLDER, [projectId])
  }
}

/**
 * The reservation's one statement alone, for the ingest transaction's first write (sent before
 * its `BEGIN`, postgres/ingest.ts): the reservation, undefined when the project has no quota,
 * or `placeholder` when its window row is missing (then {@link reserveQuota} is the way).
 */
export async function reserveQuotaOnce(
  db: Db,
  projectId: number,
  now: number,
  n: number,
): Promise<Reservation | undefined | 'placeholder'> {
  const r = await first<ReserveRow>(db, RESERVE, [projectId, now, n], 'ingest_reserve_quota')
  if (r === undefined || r.quotas === 0) return undefined
  if (r.granted === null) return 'placeholder'
  return {
    granted: r.granted,
    start: r.window_start ?? now,
    seconds: r.window_seconds ?? 0,
    limited: r.limited === 1,
  }
}

/**
 * Settles a reservation after the ingest transaction: gives back `n` reserved events that
 * were not stored (duplicates; everything when the transaction failed) and marks the window
 * limited when events were refused, in the window they were reserved in only (a window that
 * ended since is not touched). `GREATEST(0, …)` keeps a count reset by a changed quota from
 * going negative. The flag is set here, not by the reservation: a grant smaller than asked
 * may still refuse nothing, when the rest were resends (free).
 */
export async function settleQuota(
  db: Db,
  projectId: number,
  r: Reservation,
  n: number,
  refused: boolean,
): Promise<void> {
  if (n <= 0 && (!refused || r.limited)) return
  await run(
    db,
    `UPDATE quota_windows SET used = GREATEST(0, used - $2),
       limited = CASE WHEN $5 THEN 1 ELSE limited END
     WHERE project_id = $1 AND window_start = $3 AND window_seconds = $4`,
    [projectId, Math.max(0, n), r.start, r.seconds, refused],
  )
}
