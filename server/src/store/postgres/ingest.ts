import { LRUCache } from 'lru-cache'
import type pg from 'pg'
import type { RuleConditionsRow } from '../alert-decisions.ts'
import {
  duplicateResult,
  type FoundIssue,
  type GroupingIo,
  hashRuns,
  issueText,
  issueTouchParams,
  upsertGroup,
} from '../grouping-upsert.ts'
import { type AsyncCommitIo, runCommit, type UnitWrite } from '../ingest-transaction.ts'
import type { IssueSummaries } from '../issue-summaries.ts'
import { encodePayload } from '../payload-codec.ts'
import { admitReserved, type Reservation, type UnitQuota } from '../quota-rules.ts'
import {
  eventInsertValues,
  HASHED_ISSUE_COLUMNS,
  type HashedIssueRow,
  toFoundIssue,
} from '../rows/issues.ts'
import type { SearchSummaries } from '../search-summaries.ts'
import type { EventToWrite, EventWriteResult, IngestStore, WriteUnit } from '../types.ts'
import { appendDeltas, type IssueTouchDelta } from './counter-deltas.ts'
import { all, type Db, first, run, transaction } from './db.ts'
import { LockTurns } from './lock-turns.ts'
import { lockMonitors, monitorLockKeys } from './monitor-locks.ts'
import type { PipelinedTx } from './pipelined-tx.ts'
import { reserveQuota, reserveQuotaOnce, settleQuota } from './quota-reservation.ts'
import { driveSteps } from './sql-port.ts'

const byHash = (a: { projectId: number; hash: string }, b: { projectId: number; hash: string }) =>
  a.projectId - b.projectId || (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0)

/**
 * The issue of an event's (project, hash) with its triage columns. An unresolved issue is read
 * without a lock: events leave its triage state as it is, so they only add to its counters,
 * which go into the group's deltas (counter-deltas.ts) — a hot issue never makes concurrent
 * group commits wait for each other. A resolved or ignored one is read again locked for
 * update, and its change is written to the row in this transaction (`locked`).
 */
async function findHash(
  c: Db,
  ev: EventToWrite,
  hash: string,
  g: GroupState,
): Promise<FoundIssue | undefined> {
  const q = `SELECT ${HASHED_ISSUE_COLUMNS}
           FROM grouphashes g JOIN issues i ON i.id = g.issue_id
           WHERE g.project_id = $1 AND g.hash = $2`
  // The group's lookup (prefetchHashes) answers a hash's first read; a second read (after a
  // lost claim) asks again.
  const key = hashKey({ projectId: ev.projectId, hash })
  const pre = g.found.get(key)
  g.found.delete(key)
  const h =
    pre === undefined
      ? await first<HashedIssueRow>(c, q, [ev.projectId, hash], 'ingest_find_hash')
      : (pre ?? undefined)
  if (h === undefined || h.status === 'unresolved') return toFoundIssue(h)
  const l = await first<HashedIssueRow>(c, `${q} FOR UPDATE OF i`, [ev.projectId, hash])
  if (l !== undefined) g.locked.add(Number(l.issue_id))
  return toFoundIssue(l)
}

const hashKey = (e: { projectId: number; hash: string }): string => `${e.projectId}\0${e.hash}`

/**
 * Reads the issues of all the group's distinct hashes in one statement, sent with the claim of
 * the group's event ids (the transaction is pipelined): `found` gets each hash's row, or null
 * when the hash has no issue yet.
 */
async function prefetchHashes(c: Db, g: GroupState, events: readonly EventToWrite[]) {
  const wanted = new Map(events.map((e) => [hashKey(e), e]))
  const rows = await all<HashedIssueRow & { project_id: number; hash: string }>(
    c,
    `SELECT g.project_id, g.hash, ${HASHED_ISSUE_COLUMNS}
     FROM grouphashes g JOIN issues i ON i.id = g.issue_id
     WHERE (g.project_id, g.hash) IN (SELECT * FROM unnest($1::bigint[], $2::text[]))`,
    [[...wanted.values()].map((e) => e.projectId), [...wanted.values()].map((e) => e.hash)],
    'ingest_prefetch_hashes',
  )
  for (const k of wanted.keys()) g.found.set(k, null)
  for (const r of rows) g.found.set(hashKey({ projectId: r.project_id, hash: r.hash }), r)
}

/** Creates the issue of a new hash; undefined when another transaction claimed the hash. */
async function createIssue(c: Db, ev: EventToWrite): Promise<number | undefined> {
  // One round trip: the issue and the claim of its hash. When another transaction
  // claimed the hash first, the new issue row is removed again and the event joins the
  // winner's issue (grouping-upsert.ts).
  const r = await first<{ id: number; claimed: number | null }>(
    c,
    `WITH issue AS (
             INSERT INTO issues (project_id, title, culprit, level, type, value, status, first_seen, last_seen, times_seen, grouping_version)
             VALUES ($1, $2, $3, $4, $5, $6, 'unresolved', $7, $7, 1, $8) RETURNING id),
           claim AS (
             INSERT INTO grouphashes (project_id, hash, grouping_version, issue_id)
             SELECT $1, $9, $8, id FROM issue
             ON CONFLICT (project_id, hash) DO NOTHING RETURNING issue_id)
           SELECT (SELECT id FROM issue) AS id, (SELECT issue_id FROM claim) AS claimed`,
    [
      ev.projectId,
      ev.title,
      ev.culprit,
      ev.level,
      ev.type,
      ev.value,
      ev.received,
      ev.groupingVersion,
      ev.hash,
    ],
  )
  if (r === undefined) throw new Error('issue insert returned nothing')
  if (r.claimed !== null) return r.id
  await run(c, 'DELETE FROM issues WHERE id = $1', [r.id])
  return undefined
}

/**
 * What one ingest transaction collects while it writes: the prefetched hash lookups, the alert
 * rules read with them, locked issues and counter deltas.
 */
interface GroupState {
  found: Map<string, HashedIssueRow | null>
  rules: Promise<RuleConditionsRow[]> | undefined
  locked: Set<number>
  touches: IssueTouchDelta[]
}

/** The grouping rule's storage steps (grouping-upsert.ts) on the open transaction `c`. */
const groupingIo = (c: Db, g: GroupState): GroupingIo => ({
  findHash: (ev, hash) => findHash(c, ev, hash, g),
  createIssue: (ev) => createIssue(c, ev),
  claimHash: async (ev, issueId) =>
    (await run(
      c,
      `INSERT INTO grouphashes (project_id, hash, grouping_version, issue_id)
       VALUES ($1, $2, $3, $4) ON CONFLICT (project_id, hash) DO NOTHING`,
      [ev.projectId, ev.hash, ev.groupingVersion, issueId],
    )) === 1,
  touchIssue: async (t) => {
    if (!g.locked.has(t.issueId)) {
      // Only counters change: added up with the group's other counters.
      g.touches.push([t.issueId, t.count, t.lastSeen, ...issueText(t.last)])
      return
    }
    await run(
      c,
      `UPDATE issues SET times_seen = times_seen + $1, last_seen = GREATEST(last_seen, $2),
         title = $3, culprit = $4, level = $5, type = $6, value = $7, status = $8, for_review = $9,
         ignore_until = $10, ignore_until_seen = $11
       WHERE id = $12`,
      issueTouchParams(t),
    )
  },
})

const EVENT_COLUMNS =
  'project_id, event_id, issue_id, key_id, timestamp, received, level, release, environment, component, payload, search'
/** Where the payload sits in `eventInsertValues`' row. */
const PAYLOAD = 10

/**
 * The events' columns as arrays, but their payloads as one binary parameter ($11, the
 * payloads end to end) cut by their 1-based offsets and lengths ($13, $14): a payload in a
 * `bytea[]` travels as hex text that the driver escapes character by character and PostgreSQL
 * decodes again, twice its size.
 */
const INSERT_EVENTS = `INSERT INTO events (${EVENT_COLUMNS})
  SELECT p, e, i, k, t, r, lv, rel, env, comp, substring($11::bytea FROM o FOR l), s
  FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[],
    $7::text[], $8::text[], $9::text[], $10::text[], $12::text[], $13::int[], $14::int[])
    AS u(p, e, i, k, t, r, lv, rel, env, comp, s, o, l)
  RETURNING id, project_id, event_id`

/**
 * Inserts events with one statement (arrays unnested), whatever their number; nothing waits
 * for its answer (it travels with the transaction's next statements, and fails its commit).
 * The row ids it returns are set on the events' results by the time the transaction commits.
 */
function insertEvents(
  c: PipelinedTx,
  rows: { e: EventToWrite; issueId: number; r: EventWriteResult }[],
): void {
  if (rows.length === 0) return
  const cols: unknown[][] = Array.from({ length: 12 }, () => [])
  const payloads: Uint8Array[] = []
  const offsets: number[] = []
  const lengths: number[] = []
  let at = 1
  for (const { e, issueId } of rows) {
    const values = eventInsertValues(e, issueId)
    for (const [i, v] of values.entries()) if (i !== PAYLOAD) cols[i]?.push(v)
    const payload = values[PAYLOAD]
    payloads.push(payload)
    offsets.push(at)
    lengths.push(payload.length)
    at += payload.length
  }
  const params: unknown[] = cols
  params[PAYLOAD] = Buffer.concat(payloads, at - 1)
  params.push(offsets, lengths)
  c.track(
    all<{ id: number; project_id: number; event_id: string }>(
      c,
      INSERT_EVENTS,
      params,
      'ingest_insert_events',
    ).then((ids) => {
      const byKey = new Map(rows.map((row) => [`${row.e.projectId}\0${row.e.eventId}`, row.r]))
      for (const { id, project_id, event_id } of ids) {
        const r = byKey.get(`${project_id}\0${event_id}`)
        if (r !== undefined) r.rowId = Number(id)
      }
    }),
  )
}

/**
 * Writes a group's events (sorted by (project, hash); `isFresh`: the id was claimed for this
 * copy, see claimIds) with a fixed number of statements per distinct hash instead of per
 * event: per hash the grouping rule of grouping-upsert.ts (one locked read and one `UPDATE`
 * carrying the count and the triage state folded in code, the same rules as one by one), then
 * one insert of all events. Measured on the bench's single-hash load: ≈4 round trips per event
 * before.
 */
async function writeEvents(
  c: PipelinedTx,
  g: GroupState,
  events: EventToWrite[],
  isFresh: boolean[],
): Promise<EventWriteResult[]> {
  const results: EventWriteResult[] = events.map(duplicateResult)
  if (events.length === 0) return results
  // A copy not claimed now was stored by an earlier group (or another node), or is a second
  // copy in this group.
  const claimed = new Set(events.filter((_, i) => isFresh[i] === true))
  const io = groupingIo(c, g)
  for (const hashRun of hashRuns(events, (e) => !claimed.has(e), true)) {
    const grouped = await upsertGroup(
      io,
      hashRun.map((i) => events[i] as EventToWrite),
    )
    hashRun.forEach((i, n) => {
      Object.assign(results[i] as EventWriteResult, grouped[n], { duplicate: false })
    })
  }
  const toInsert: { e: EventToWrite; issueId: number; r: EventWriteResult }[] = []
  events.forEach((e, i) => {
    const r = results[i] as EventWriteResult
    if (!r.duplicate) toInsert.push({ e, issueId: r.issueId, r })
  })
  insertEvents(c, toInsert)
  return results
}

/**
 * Claims the idempotency keys of the group's events in one statement; returns per event
 * whether it is new (the first copy of an id no earlier group stored).
 */
async function claimIds(c: Db, events: readonly EventToWrite[]): Promise<boolean[]> {
  if (events.length === 0) return []
  const claimed = await all<{ project_id: number; event_id: string }>(
    c,
    `INSERT INTO event_ids (project_id, event_id, received)
     SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[])
     ON CONFLICT (project_id, event_id) DO NOTHING RETURNING project_id, event_id`,
    [events.map((e) => e.projectId), events.map((e) => e.eventId), events.map((e) => e.received)],
    'ingest_claim_ids',
  )
  const open = new Set(claimed.map((r) => `${r.project_id}\0${r.event_id}`))
  return events.map((e) => open.delete(`${e.projectId}\0${e.eventId}`))
}

/** What a committed group did with a project's reservation (settled after the commit). */
interface Settled {
  /** Granted events that were stored; the rest of the grant is given back. */
  stored: number
  /** Events were refused: the window is marked limited. */
  refused: boolean
}

/** The project of a unit of events (a unit holds one project's events). */
const eventProject = (u: WriteUnit): number | undefined => u.events[0]?.projectId

/** Per project of a group, the receive time of its first unit and its number of events. */
type Wanted = [projectId: number, w: { now: number; n: number }][]

/** Each project's events of the group, in project order, at the receive time of its first unit. */
function wantedReservations(units: readonly WriteUnit[]): Wanted {
  const wanted = new Map<number, { now: number; n: number }>()
  for (const u of units) {
    const id = eventProject(u)
    if (id === undefined) continue
    const w = wanted.get(id) ?? { now: u.events[0]?.received ?? 0, n: 0 }
    w.n += u.events.length
    wanted.set(id, w)
  }
  return [...wanted].sort((x, y) => x[0] - y[0])
}

/**
 * Reserves each project's events of the group with its one autocommit statement
 * (quota-reservation.ts), all queued on the transaction's connection ahead of its `BEGIN`, so
 * they travel in its first write. Resolves with the projects that still need their window's
 * placeholder row (none, but for the first events of a new quota): those are reserved again
 * the long way before the group is written.
 */
async function reserveAhead(c: Db, wanted: Wanted, out: Map<number, Reservation>) {
  const rs = await Promise.all(wanted.map(([id, w]) => reserveQuotaOnce(c, id, w.now, w.n)))
  const missing: Wanted = []
  rs.forEach((r, k) => {
    const w = wanted[k] as Wanted[number]
    if (r === 'placeholder') missing.push(w)
    else if (r !== undefined) out.set(w[0], r)
  })
  return missing
}

/** Thrown inside a group's transaction when a quota's window row must be created first. */
class PlaceholderNeeded extends Error {
  readonly missing: Wanted
  constructor(missing: Wanted) {
    super('quota window placeholder needed')
    this.missing = missing
  }
}

/**
 * Splits each project's reservation over its units in unit order (quota-rules.ts), gives back
 * the claims of refused events (they were never stored) and returns per unit what the charge
 * met, per event (in `flat` order) whether it is kept, and per project how many granted
 * events were stored (the rest is given back after the commit).
 */
async function chargeUnits(
  c: Db,
  units: readonly WriteUnit[],
  reserved: Map<number, Reservation>,
  fresh: readonly boolean[],
): Promise<{ quota: (UnitQuota | undefined)[]; keep: boolean[]; used: Map<number, Settled> }> {
  const keep: boolean[] = fresh.map(() => true)
  const quota: (UnitQuota | undefined)[] = units.map(() => undefined)
  const used = new Map<number, Settled>()
  if (reserved.size === 0) return { quota, keep, used }
  const starts: number[] = []
  let at = 0
  for (const u of units) {
    starts.push(at)
    at += u.events.length
  }
  const refusedEvents: EventToWrite[] = []
  for (const [id, r] of reserved) {
    const mine = [...units.keys()].filter((n) => eventProject(units[n] as WriteUnit) === id)
    const a = admitReserved(
      mine.map((n) => (units[n] as WriteUnit).events),
      r.granted,
      (u, i) => fresh[(starts[mine[u] ?? 0] ?? 0) + i] === true,
    )
    const refusedAny = a.refused.some((x) => x > 0)
    used.set(id, { stored: a.used, refused: refusedAny })
    const windowEnd = r.start + r.seconds * 1000
    for (const [u, n] of mine.entries()) {
      quota[n] = { refused: a.refused[u] ?? 0, windowEnd, limited: r.limited || refusedAny }
      const from = starts[n] ?? 0
      a.keep[u]?.forEach((k, i) => {
        if (k) return
        keep[from + i] = false
        if (fresh[from + i] === true)
          refusedEvents.push((units[n] as WriteUnit).events[i] as EventToWrite)
      })
    }
  }
  if (refusedEvents.length > 0)
    await run(
      c,
      `DELETE FROM event_ids WHERE (project_id, event_id) IN
         (SELECT * FROM unnest($1::bigint[], $2::text[]))`,
      [refusedEvents.map((e) => e.projectId), refusedEvents.map((e) => e.eventId)],
    )
  return { quota, keep, used }
}

/**
 * The ingest write path on PostgreSQL: every unit of a group commit in one transaction, on
 * one pooled connection, so several groups commit at once (the committer's `maxInFlight` is
 * the pool size). Lock order is stable: the group's events are written in (project, hash)
 * order, counters are upserted in key order; a deadlock or
 * serialization failure reruns the transaction (db.ts), and a group that still fails is
 * retried unit by unit by the group committer.
 */
export function pgIngest(pool: pg.Pool): IngestStore {
  const turns = new LockTurns()
  const knownFacets = new LRUCache<string, true>({ max: KNOWN_FACETS })
  const writeGroup = async (
    units: WriteUnit[],
    lockTaken: () => void,
    reserved: Map<number, Reservation>,
    stored: Map<number, Settled>,
    ahead: Wanted,
  ) => {
    let reserving: Promise<Wanted> | undefined
    // The facet rows this attempt sent: remembered once the transaction committed.
    const facetsWritten: string[] = []
    const written = await transaction(
      pool,
      async (c) => {
        stored.clear()
        facetsWritten.length = 0
        const g: GroupState = {
          found: new Map(),
          rules: undefined,
          locked: new Set(),
          touches: [],
        }
        // Monitors before issues: every group takes its locks in this one order.
        await lockMonitors(
          c,
          units.flatMap((u) => u.checkIns ?? []),
        )
        lockTaken()
        // The transaction's rule is ingest-transaction.ts; these are PostgreSQL's statements.
        const io: AsyncCommitIo = {
          units: async (units) => {
            const flat = units.flatMap((u, unit) => u.events.map((e) => ({ e, unit })))
            const events = flat.map((o) => o.e)
            // Sent in one write with BEGIN: the claim, the hashes' issues and the alert rules of
            // the group's projects (read whether or not an event turns out to need them).
            g.rules = readRules(c, [...new Set(events.map((e) => e.projectId))])
            c.track(g.rules)
            const asked = Promise.all([claimIds(c, events), prefetchHashes(c, g, events)])
            asked.catch(() => undefined) // awaited below, after the reservations
            c.send()
            // While PostgreSQL claims and looks up, the payloads get their stored form.
            for (const e of events)
              if (typeof e.payload === 'string') e.payload = encodePayload(e.payload)
            // The reservations left in the same write, ahead of BEGIN.
            const missing = await reserving
            if (missing !== undefined && missing.length > 0) throw new PlaceholderNeeded(missing)
            const [fresh] = await asked
            const charged = await chargeUnits(c, units, reserved, fresh)
            for (const [id, n] of charged.used) stored.set(id, n)
            // Events in (project, hash) order across the whole group (stable: one hash's events
            // keep their order), so concurrent groups lock issues in the same order.
            const ordered = flat
              .map((o, n) => ({ ...o, n, fresh: fresh[n] === true }))
              .filter((o) => charged.keep[o.n])
              .sort((x, y) => byHash(x.e, y.e))
            const written = await writeEvents(
              c,
              g,
              ordered.map((o) => o.e),
              ordered.map((o) => o.fresh),
            )
            // Back in unit order; refused events are left out.
            const byFlat = new Map(ordered.map((o, k) => [o.n, written[k] as EventWriteResult]))
            const out: UnitWrite[] = units.map((_, n) => {
              const q = charged.quota[n]
              return q === undefined ? { written: [] } : { written: [], quota: q }
            })
            flat.forEach(({ e, unit }, n) => {
              const r = byFlat.get(n)
              if (r !== undefined) out[unit]?.written.push({ e, r })
            })
            return out
          },
          event: async (e) =>
            (await writeEvents(c, g, [e], await claimIds(c, [e])))[0] as EventWriteResult,
          steps: (s) => driveSteps(c, s),
          rules: async (projectIds) => {
            const read = g.rules
            if (read === undefined) return readRules(c, projectIds)
            const wanted = new Set(projectIds)
            return (await read).filter((r) => wanted.has(Number(r.project_id)))
          },
          count: async (check) =>
            (
              await first<{ n: number }>(
                c,
                'SELECT COUNT(*)::int AS n FROM (SELECT 1 FROM events WHERE issue_id = $1 AND received >= $2 LIMIT $3) capped',
                [check.issueId, check.since, check.threshold + 1],
              )
            )?.n ?? 0,
          triggers: async (d, now) => {
            c.track(
              run(
                c,
                `INSERT INTO alert_triggers (rule_id, project_id, issue_id, trigger_kind, trigger_id, event_id, created_at)
             SELECT r, p, i, k, t, e, $7 FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::text[])
               AS x(r, p, i, k, t, e)
             ON CONFLICT (rule_id, issue_id, trigger_kind, trigger_id) DO NOTHING`,
                [
                  d.map((x) => x.ruleId),
                  d.map((x) => x.projectId),
                  d.map((x) => x.issueId),
                  d.map((x) => x.kind),
                  d.map((x) => x.triggerId),
                  d.map((x) => x.eventId),
                  now,
                ],
              ),
            )
          },
          // Counters in one appended row (counter-deltas.ts); facets and texts are inserts.
          // Nothing waits for them: they leave with COMMIT.
          counters: async ({ outcomes, summaries, search, health }) => {
            c.track(
              appendDeltas(c, {
                touches: g.touches,
                hours: summaries.hours(),
                tags: search.tags(),
                outcomes,
                // Release-health rollups: in the same row (release-health.ts sums them).
                ...(health !== undefined && health.size > 0 ? { health: health.sorted() } : {}),
              }),
            )
            c.track(writeFacets(c, summaries, knownFacets, facetsWritten))
            c.track(writeTexts(c, search))
          },
        }
        return runCommit(io, 'postgres', units, Date.now())
      },
      (c) => {
        // The first attempt's first write carries the reservations (a rerun keeps them).
        if (reserving !== undefined || ahead.length === 0) return
        reserving = reserveAhead(c, ahead, reserved)
        reserving.catch(() => undefined) // awaited by the units step
      },
    )
    for (const k of facetsWritten) knownFacets.set(k, true)
    return written
  }
  return {
    write: async (units) => {
      // The quota is reserved before the transaction (autocommit statements ahead of its
      // BEGIN) and what was not stored is given back after it. A node that dies in between
      // leaves its reservation counted: the window under-admits until it ends, it never admits
      // more than the quota.
      const reserved = new Map<number, Reservation>()
      const stored = new Map<number, Settled>()
      // Check-ins of one monitor lock in the order this node received them (lock-turns.ts).
      const taken = await turns.enter(monitorLockKeys(units.flatMap((u) => u.checkIns ?? [])))
      try {
        try {
          return await writeGroup(units, taken, reserved, stored, wantedReservations(units))
        } catch (err) {
          if (!(err instanceof PlaceholderNeeded)) throw err
          // A new quota's first events: its window row is created and reserved the long way,
          // then the group is written with every reservation made.
          for (const [id, w] of err.missing) {
            const r = await reserveQuota(pool, id, w.now, w.n)
            if (r !== undefined) reserved.set(id, r)
          }
          return await writeGroup(units, taken, reserved, stored, [])
        }
      } catch (err) {
        stored.clear()
        throw err
      } finally {
        taken()
        // A give-back that fails (database gone) only under-admits until the window ends;
        // it must not turn a committed write into an error.
        for (const [id, r] of reserved)
          await settleQuota(
            pool,
            id,
            r,
            r.granted - (stored.get(id)?.stored ?? 0),
            stored.get(id)?.refused ?? false,
          ).catch(() => undefined)
      }
    },
  }
}

/** The live alert rules of these projects. */
const readRules = (c: Db, projectIds: readonly number[]): Promise<RuleConditionsRow[]> =>
  all<RuleConditionsRow>(
    c,
    `SELECT id, project_id, conditions FROM alert_rules
     WHERE project_id = ANY($1::bigint[]) AND deleted_at IS NULL`,
    [projectIds],
    'ingest_alert_rules',
  )

/**
 * Facet rows this node has seen committed, by key: a later group skips them instead of sending
 * them again to be ignored by `ON CONFLICT DO NOTHING` (under events spread over 1,000 issues
 * that statement was about 4 % of PostgreSQL's statement time per group commit). True because
 * a facet row is only ever removed with its issue, and an issue's id is never reused: a row
 * once committed stays as long as its issue can get events. Bounded; a key evicted is only
 * written again.
 */
const KNOWN_FACETS = 100_000

/** The key of a facet row in the cache above. */
const facetKey = (f: readonly [number, string, string, number]) => `${f[0]}\0${f[1]}\0${f[2]}`

/**
 * The group's issue facets (migration 004) this node has not seen committed: one insert, rows
 * in key order. Their keys go to `written`, which the caller adds to `known` once the group
 * committed (a rolled-back group's rows were not written).
 */
async function writeFacets(
  c: Db,
  s: IssueSummaries,
  known: LRUCache<string, true>,
  written: string[],
): Promise<void> {
  const facets = s.facets().filter((f) => !known.has(facetKey(f)))
  if (facets.length === 0) return
  for (const f of facets) written.push(facetKey(f))
  await run(
    c,
    `INSERT INTO issue_facets (issue_id, kind, value, project_id)
     SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[])
     ON CONFLICT DO NOTHING`,
    [0, 1, 2, 3].map((i) => facets.map((f) => f[i])),
    'ingest_facets',
  )
}

/** The search text of the issues the group created (migration 009), one statement. */
async function writeTexts(c: Db, s: SearchSummaries): Promise<void> {
  const texts = s.issueTexts()
  if (texts.length > 0)
    await run(
      c,
      `INSERT INTO issue_text (issue_id, body) SELECT * FROM unnest($1::bigint[], $2::text[])
       ON CONFLICT (issue_id) DO UPDATE SET body = excluded.body`,
      [texts.map((t) => t[0]), texts.map((t) => t[1])],
    )
}
