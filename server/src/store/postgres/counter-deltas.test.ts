import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { row } from '../../../test/store-contract/contract.ts'
import { createTestDatabase } from '../../../test/support/postgres-database.ts'
import { pgNodesPerTest } from '../../../test/support/postgres-nodes.ts'
import type { WriteUnit } from '../ingest-store.ts'
import type { SessionUpdate } from '../release-health-types.ts'
import {
  appendDeltas,
  type CounterDeltas,
  CounterFolder,
  foldDeltas,
  foldStatement,
  foldTurn,
  type IssueTouchDelta,
} from './counter-deltas.ts'
import { openPool } from './db.ts'
import { openPostgresStore } from './index.ts'

const HOUR = 3_600_000
const T0 = Date.UTC(2026, 0, 15, 10, 0, 0)
/** Later than every test event's receive time (store-contract `row`). */
const L = 1_800_000_000_000
const RANGE = { since: 0, until: T0 + 10 * HOUR }
/** One page of the release list, bigger than any test writes. */
const PAGE = { limit: 100 }

/** A unit of one session update of release `r@1` in production (`over` changes it). */
const sessionUnit = (projectId: number, over: Partial<SessionUpdate>): WriteUnit => ({
  events: [],
  outcomes: [],
  sessions: [
    {
      projectId,
      sid: 's',
      did: null,
      release: 'r@1',
      environment: 'prod',
      started: T0 + 60_000,
      timestamp: T0 + 120_000,
      status: 'exited',
      errors: 0,
      category: 'healthy',
      ...over,
    },
  ],
})

/** Two stores on one database: two server nodes, each with its own pool. */
const twoNodes = pgNodesPerTest()

async function sql<T extends pg.QueryResultRow>(url: string, q: string, args: unknown[] = []) {
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  try {
    return (await c.query<T>(q, args)).rows
  } finally {
    await c.end()
  }
}

describe('counter deltas on PostgreSQL', () => {
  it('a fold sums the pending rows per key; a touch keeps the text of its latest event, on a tie the later one', async () => {
    const f = await foldedIssue()
    try {
      const id = f.issueId
      await f.insertDelta(
        f.delta(2, 'u2', { touches: [[id, 2, L + 200, 'new', 'c2', 'error', 'E2', 'v2']] }),
      )
      await f.insertDelta(
        f.delta(3, 'u2', {
          touches: [
            [id, 3, L + 100, 'old', 'c1', 'warning', 'E1', 'v1'],
            // The same last-seen time as the first row's: this later row's text wins.
            [id, 0, L + 200, 'tie', 'c3', 'info', 'E3', 'v3'],
          ],
        }),
      )
      expect(await foldDeltas(f.pool, false)).toBe(2)
      expect(await f.counts()).toEqual({
        timesSeen: 6,
        // u2 is new to the issue once, however many rows name it.
        users: 2,
        hours: 6,
        userTags: [
          ['u1', 1],
          ['u2', 5],
        ],
        pending: 0,
      })
      const tie = { title: 'tie', culprit: 'c3', level: 'info', type: 'E3', value: 'v3' }
      expect(await f.text()).toEqual({ ...tie, lastSeen: L + 200 })
      // An older event's text does not replace a later one's; its count still adds up.
      await f.insertDelta(
        f.delta(1, 'u1', { touches: [[id, 1, L, 'older', 'c0', 'fatal', 'E0', 'v0']] }),
      )
      expect(await foldDeltas(f.pool, false)).toBe(1)
      expect(await f.text()).toEqual({ ...tie, lastSeen: L + 200 })
      expect((await f.counts()).timesSeen).toBe(7)
      // A row a node wrote before touches carried type and value: those two stay.
      const legacy = [id, 1, L + 300, 'legacy', 'c4', 'error'] as unknown as IssueTouchDelta
      await f.insertDelta(f.delta(1, 'u1', { touches: [legacy] }))
      expect(await foldDeltas(f.pool, false)).toBe(1)
      expect(await f.text()).toEqual({
        title: 'legacy',
        culprit: 'c4',
        level: 'error',
        type: 'E3',
        value: 'v3',
        lastSeen: L + 300,
      })
    } finally {
      await f.close()
    }
  })

  it('a fold sums release-health rollups per row, keeping the -1 and +1 of a moved session', async () => {
    const f = await foldedIssue()
    try {
      const p = f.projectId
      const none = { touches: [], hours: [], tags: [], outcomes: [] }
      await f.insertDelta({
        ...none,
        health: [
          [p, 'r@1', 'prod', T0, 1, 1, 0, 0, 0, 0],
          [p, 'r@2', 'prod', T0, 2, 2, 0, 0, 0, 0],
        ],
      })
      // A delta row written before release health went through deltas has no `health`.
      await f.insertDelta({ ...none, touches: [[f.issueId, 1, L, 't', 'c', 'error', 'E', 'v']] })
      // The session of the first row crashed: it leaves healthy for crashed, no new session.
      await f.insertDelta({ ...none, health: [[p, 'r@1', 'prod', T0, 0, -1, 0, 0, 0, 1]] })
      expect(await foldDeltas(f.pool, false)).toBe(3)
      const rows = await sql<{
        release: string
        sessions: string
        healthy: string
        crashed: string
      }>(
        f.url,
        `SELECT release, sessions, healthy, crashed FROM health_hours
         WHERE project_id = $1 ORDER BY release`,
        [p],
      )
      expect(
        rows.map((r) => [r.release, Number(r.sessions), Number(r.healthy), Number(r.crashed)]),
      ).toEqual([
        ['r@1', 1, 0, 1],
        ['r@2', 2, 2, 0],
      ])
      expect((await f.counts()).timesSeen).toBe(2)
    } finally {
      await f.close()
    }
  })

  it('client text PostgreSQL cannot read in JSON (NUL, lone surrogates) folds as U+FFFD', async () => {
    const f = await foldedIssue()
    try {
      const title = 'a\0b\ud800c\\u0000d'
      const pool = openPool(f.url, 1)
      try {
        await appendDeltas(pool, {
          ...f.delta(1, 'u\udc00'),
          touches: [[f.issueId, 1, L, title, 'c', 'error', null, null]],
        })
      } finally {
        await pool.end()
      }
      expect(await foldDeltas(f.pool, false)).toBe(1)
      // A backslash the client sent before "u0000" stays text.
      expect((await f.text()).title).toBe('a\ufffdb\ufffdc\\u0000d')
      expect((await f.counts()).userTags).toEqual([
        ['u1', 1],
        ['u\ufffd', 1],
      ])
    } finally {
      await f.close()
    }
  })

  it('one hot issue written on two nodes at once: counted once each, whichever node folds', async () => {
    const { a, b, project, key, url } = await twoNodes()
    const group = (i: number) =>
      Array.from({ length: 3 }, (_, u) => ({
        events: [row(project.id, key.id, 'hot', { tags: [['user', `u${(i + u) % 5}`]] })],
        outcomes: [],
      }))
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).write(group(i))),
    )
    const issueId = results[0]?.[0]?.events[0]?.issueId ?? 0
    // Both nodes fold at once (one waiting for the other's rows): each row exactly once.
    await Promise.all([
      foldDeltas(a.pool, true),
      foldDeltas(b.pool, true),
      foldDeltas(a.pool, false),
    ])
    const [ia, ib] = await Promise.all([a.getIssue(issueId), b.getIssue(issueId)])
    expect(ia?.timesSeen).toBe(60)
    expect(ib?.timesSeen).toBe(60)
    expect(ia?.users).toBe(5)
    const left = await sql<{ n: string }>(url, 'SELECT count(*) AS n FROM counter_deltas')
    expect(Number(left[0]?.n)).toBe(0)
    const hours = await sql<{ n: string }>(
      url,
      'SELECT sum(events) AS n FROM issue_hours WHERE issue_id = $1',
      [issueId],
    )
    expect(Number(hours[0]?.n)).toBe(60)
    const tags = await a.tagDistribution(issueId, 10)
    expect(tags.find((t) => t.key === 'user')?.total).toBe(60)
    const totals = await b.outcomeTotals(project.id, 0, Number.MAX_SAFE_INTEGER)
    expect(totals).toEqual([{ outcome: 'accepted', reason: '', category: 'error', quantity: 60 }])
  })

  it('a group that rolls back leaves no delta: nothing it counted is folded', async () => {
    const { a, project, key, url } = await twoNodes()
    await a.write([{ events: [row(project.id, key.id, 'x')], outcomes: [] }])
    // A unit of a project that does not exist fails its whole group (foreign key).
    await expect(
      a.write([
        { events: [row(project.id, key.id, 'x')], outcomes: [] },
        { events: [row(999_999, key.id, 'x')], outcomes: [] },
      ]),
    ).rejects.toThrow(/foreign key/)
    const { issues } = await a.listIssues(project.id, {}, { limit: 10 })
    expect(issues.map((i) => i.timesSeen)).toEqual([1])
    const left = await sql<{ n: string }>(url, 'SELECT count(*) AS n FROM counter_deltas')
    expect(Number(left[0]?.n)).toBe(0)
  })

  it('a session storm of one release on two nodes: every session counted once, in its worst state', async () => {
    const { a, b, project, url } = await twoNodes()
    // 40 sessions, each started healthy on one node and ended on the other (every 4th crashed,
    // every 5th errored), plus a resend of each end: one hot (release, environment, hour) row.
    const starts = Array.from({ length: 40 }, (_, i) =>
      (i % 2 === 0 ? a : b).write([sessionUnit(project.id, { sid: `s${i}`, did: `u${i % 7}` })]),
    )
    await Promise.all(starts)
    const end = (i: number): WriteUnit =>
      sessionUnit(project.id, {
        sid: `s${i}`,
        did: `u${i % 7}`,
        ...(i % 4 === 0
          ? { status: 'crashed', category: 'crashed' as const, errors: 1 }
          : i % 5 === 0
            ? { status: 'exited', category: 'errored' as const, errors: 2 }
            : {}),
      })
    await Promise.all(
      Array.from({ length: 80 }, (_, k) => (k % 2 === 0 ? b : a).write([end(k % 40)])),
    )
    // Both nodes fold at once, one waiting for the other's rows.
    await Promise.all([foldDeltas(a.pool, true), foldDeltas(b.pool, false)])
    const left = await sql<{ n: string }>(url, 'SELECT count(*) AS n FROM counter_deltas')
    expect(Number(left[0]?.n)).toBe(0)
    // i % 4 === 0: 10 crashed; i % 5 === 0 and not % 4: 0, 5, 10, … minus 0, 20 → 6 errored.
    const sessions = { total: 40, healthy: 24, errored: 6, unhandled: 0, abnormal: 0, crashed: 10 }
    const [ra] = (await a.listReleaseHealth(project.id, RANGE, PAGE)).releases
    const [rb] = (await b.listReleaseHealth(project.id, RANGE, PAGE)).releases
    expect(ra?.counts.sessions).toEqual(sessions)
    expect(rb?.counts.sessions).toEqual(sessions)
    const series = await b.releaseHealthSeries(project.id, 'r@1', RANGE)
    expect(series?.totals.sessions).toEqual(sessions)
    expect(series?.series.map((p) => [p.hour, p.counts.sessions.total])).toEqual([[T0, 40]])
    // One rollup row, written by the folds only.
    const rows = await sql<{ sessions: string }>(
      url,
      'SELECT sessions FROM health_hours WHERE project_id = $1',
      [project.id],
    )
    expect(rows.map((r) => Number(r.sessions))).toEqual([40])
  })

  it('release health read on another node counts a delta that no fold has taken yet', async () => {
    const { a, b, project, url } = await twoNodes()
    const c = new pg.Client({ connectionString: url })
    await c.connect()
    try {
      // Write until a delta is caught pending: the background folds (every 200 ms) may take
      // one first. The caught row stays locked, so every background fold skips it.
      let caught = 0
      for (let i = 0; i < 20 && caught === 0; i++) {
        await a.write([
          sessionUnit(project.id, { sid: `p${i}`, status: 'crashed', category: 'crashed' }),
        ])
        await c.query('BEGIN')
        const r = await c.query<{ id: string; body: string }>(
          'SELECT id, body FROM counter_deltas ORDER BY id FOR UPDATE SKIP LOCKED',
        )
        caught = r.rows.length
        if (caught === 0) await c.query('COMMIT')
        else
          expect(r.rows.map((x) => JSON.parse(x.body).health)).toContainEqual([
            [project.id, 'r@1', 'prod', T0, 1, 0, 0, 0, 0, 1],
          ])
      }
      expect(caught).toBeGreaterThan(0)
      // Not in the rollup yet; the read waits for the locked row and folds it first.
      const before = await sql<{ n: string }>(
        url,
        'SELECT coalesce(sum(crashed), 0) AS n FROM health_hours WHERE project_id = $1',
        [project.id],
      )
      const read = b.listReleaseHealth(project.id, RANGE, PAGE)
      const series = b.releaseHealthSeries(project.id, 'r@1', RANGE)
      await c.query('COMMIT')
      const [r] = (await read).releases
      const pending = Number(before[0]?.n)
      expect(pending).toBeLessThan(r?.counts.sessions.crashed ?? 0)
      expect(r?.counts.sessions.total).toBe(r?.counts.sessions.crashed)
      const written = await sql<{ n: string }>(
        url,
        'SELECT count(*) AS n FROM health_sessions WHERE project_id = $1',
        [project.id],
      )
      expect(r?.counts.sessions.total).toBe(Number(written[0]?.n))
      expect((await series)?.totals.sessions.crashed).toBe(Number(written[0]?.n))
    } finally {
      await c.end()
    }
  })
})

/** A node of an `EXPLAIN (ANALYZE, FORMAT JSON)` plan, as far as the test reads it. */
interface PlanNode {
  'Node Type': string
  'Actual Loops'?: number
  'Rows Removed by Join Filter'?: number
  Plans?: PlanNode[]
}

/** Rows a plan's joins read and threw away, over every loop of every node. */
const joinRowsRemoved = (n: PlanNode): number =>
  (n['Rows Removed by Join Filter'] ?? 0) * (n['Actual Loops'] ?? 1) +
  (n.Plans ?? []).reduce((sum, c) => sum + joinRowsRemoved(c), 0)

describe('the fold statement', () => {
  it('looks each user row up once, not against every other: its joins discard few rows with 300 issues', async () => {
    const db = await createTestDatabase()
    const store = await openPostgresStore(db.url, { poolSize: 2 })
    const n = 300
    try {
      const { project, key } = await store.createProject('P', 'p', 'b'.repeat(32))
      const written = await store.write(
        Array.from({ length: n }, (_, i) => ({
          events: [row(project.id, key.id, `h${i}`, { tags: [['user', `old${i}`]] })],
          outcomes: [],
        })),
      )
      const ids = written.map((r) => r.events[0]?.issueId ?? 0)
      // Folded, so the delta below is the only one pending (no fold runs once the store closed).
      await store.listIssues(project.id, {}, { limit: 1 })
      await store.close()
      const body: CounterDeltas = {
        touches: ids.map((id) => [id, 2, L, 't', 'c', 'error', 'E', 'v']),
        hours: ids.map((id) => [id, T0, 2]),
        // Each issue: a user it had (not new) and one it had not (new).
        tags: ids.flatMap((id, i): CounterDeltas['tags'] => [
          [id, 'user', `old${i}`, 1, L, L],
          [id, 'user', `new${i}`, 1, L, L],
        ]),
        outcomes: [],
      }
      await sql(db.url, 'INSERT INTO counter_deltas (body) VALUES ($1)', [JSON.stringify(body)])
      const [plan] = await sql<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
        db.url,
        `EXPLAIN (ANALYZE, FORMAT JSON) ${foldStatement(false)}`,
      )
      const root = plan?.['QUERY PLAN'][0]?.Plan
      expect(root).toBeDefined()
      // Every user row against every other would discard n × 2n rows (180,000).
      expect(joinRowsRemoved(root as PlanNode)).toBeLessThan(4 * n)
      const counts = await sql<{ users: string; times_seen: string }>(
        db.url,
        'SELECT users, times_seen FROM issues WHERE project_id = $1',
        [project.id],
      )
      expect(counts.length).toBe(n)
      expect(new Set(counts.map((c) => `${c.users}/${c.times_seen}`))).toEqual(new Set(['2/3']))
    } finally {
      await db.drop()
    }
  })
})

describe('the counter folder', () => {
  it('serves a burst of reads with two folds, each read counting what was written before it', async () => {
    const { a, project, key, url } = await twoNodes()
    // A folder of its own without the periodic fold, so every fold transaction is a flush's.
    const pool = new pg.Pool({ connectionString: url, max: 4 })
    const folder = new CounterFolder(pool)
    let folds = 0
    pool.on('acquire', () => {
      folds++
    })
    try {
      await a.write([{ events: [row(project.id, key.id, 'burst')], outcomes: [] }])
      const first = folder.flush()
      // Written while the first fold may already have taken the pending rows.
      await a.write([{ events: [row(project.id, key.id, 'burst')], outcomes: [] }])
      await Promise.all([first, ...Array.from({ length: 20 }, () => folder.flush())])
      // Two, or one when the first fold was still waiting for its connection (its delete not
      // issued) as the burst asked: then it takes the second write too.
      expect([1, 2]).toContain(folds)
      const rows = await sql<{ times_seen: string }>(
        url,
        'SELECT times_seen FROM issues WHERE project_id = $1',
        [project.id],
      )
      expect(rows.map((r) => Number(r.times_seen))).toEqual([2])
    } finally {
      await pool.end()
    }
  })
})

/**
 * A database holding one issue seen once by user `u1` (its counters folded), with no store
 * left open on it: nothing folds but the test's own calls. `insertDelta` appends a pending
 * delta row as a group commit does.
 */
async function foldedIssue() {
  const db = await createTestDatabase()
  const store = await openPostgresStore(db.url, { poolSize: 2 })
  const { project, key } = await store.createProject('P', 'p', 'b'.repeat(32))
  const [r] = await store.write([
    { events: [row(project.id, key.id, 'f', { tags: [['user', 'u1']] })], outcomes: [] },
  ])
  const issueId = r?.events[0]?.issueId ?? 0
  expect((await store.getIssue(issueId))?.timesSeen).toBe(1)
  await store.close()
  const pool = openPool(db.url, 4)
  const counts = async () => {
    const [i] = await sql<{ times_seen: string; users: string }>(
      db.url,
      'SELECT times_seen, users FROM issues WHERE id = $1',
      [issueId],
    )
    const [h] = await sql<{ n: string | null }>(
      db.url,
      'SELECT sum(events) AS n FROM issue_hours WHERE issue_id = $1',
      [issueId],
    )
    const tags = await sql<{ value: string; times_seen: string }>(
      db.url,
      "SELECT value, times_seen FROM issue_tags WHERE issue_id = $1 AND key = 'user' ORDER BY value",
      [issueId],
    )
    const [p] = await sql<{ n: string }>(db.url, 'SELECT count(*) AS n FROM counter_deltas')
    return {
      timesSeen: Number(i?.times_seen),
      users: Number(i?.users),
      hours: Number(h?.n),
      userTags: tags.map((t) => [t.value, Number(t.times_seen)]),
      pending: Number(p?.n),
    }
  }
  /** A delta of `n` events of the issue by user `user` (and `extra` merged in). */
  const delta = (n: number, user: string, extra: Partial<CounterDeltas> = {}): CounterDeltas => ({
    touches: [[issueId, n, T0, 'title f', 'app.js in run', 'error', 'Error', 'f']],
    hours: [[issueId, T0, n]],
    tags: [[issueId, 'user', user, n, T0, T0]],
    outcomes: [],
    ...extra,
  })
  const insertDelta = async (d: CounterDeltas) =>
    (
      await sql<{ id: string }>(
        db.url,
        'INSERT INTO counter_deltas (body) VALUES ($1) RETURNING id',
        [JSON.stringify(d)],
      )
    )[0]?.id
  /** The issue's text columns and last-seen time. */
  const text = async () => {
    const [i] = await sql<{
      title: string
      culprit: string
      level: string
      type: string | null
      value: string | null
      last_seen: string
    }>(db.url, 'SELECT title, culprit, level, type, value, last_seen FROM issues WHERE id = $1', [
      issueId,
    ])
    return {
      title: i?.title,
      culprit: i?.culprit,
      level: i?.level,
      type: i?.type,
      value: i?.value,
      lastSeen: Number(i?.last_seen),
    }
  }
  return {
    url: db.url,
    pool,
    issueId,
    projectId: project.id,
    counts,
    text,
    delta,
    insertDelta,
    close: async () => {
      await pool.end()
      await db.drop()
    },
  }
}

describe('the counter fold', () => {
  it('rolls back wholly when one of its statements fails, and then counts each delta once', async () => {
    const f = await foldedIssue()
    try {
      const before = await f.counts()
      expect(before).toEqual({
        timesSeen: 1,
        users: 1,
        hours: 1,
        userTags: [['u1', 1]],
        pending: 0,
      })
      await f.insertDelta(f.delta(2, 'u2'))
      // An outcome the table refuses (category NOT NULL): the fold's outcome insert fails after
      // its issue, hour and tag writes, in the same statement.
      const bad = await f.insertDelta({
        touches: [],
        hours: [],
        tags: [],
        outcomes: [
          {
            projectId: 1,
            keyId: 1,
            at: T0,
            outcome: 'accepted',
            reason: '',
            category: null as unknown as string,
            quantity: 1,
          },
        ],
      })
      await expect(foldDeltas(f.pool, false)).rejects.toThrow(/null value in column "category"/)
      // Nothing of it kept: neither the counters written before the failure nor the deletes.
      expect(await f.counts()).toEqual({ ...before, pending: 2 })
      await sql(f.url, 'DELETE FROM counter_deltas WHERE id = $1', [bad])
      expect(await foldDeltas(f.pool, false)).toBe(1)
      const after = {
        timesSeen: 3,
        users: 2,
        hours: 3,
        userTags: [
          ['u1', 1],
          ['u2', 2],
        ],
        pending: 0,
      }
      expect(await f.counts()).toEqual(after)
      // A user seen again is not new: users stay, its count grows.
      await f.insertDelta(f.delta(1, 'u2'))
      expect(await foldDeltas(f.pool, false)).toBe(1)
      expect(await f.counts()).toEqual({
        ...after,
        timesSeen: 4,
        hours: 4,
        userTags: [
          ['u1', 1],
          ['u2', 3],
        ],
      })
      expect(await foldDeltas(f.pool, false)).toBe(0)
    } finally {
      await f.close()
    }
  })

  it('a read asked after a fold issued its delete waits for the next fold, and counts what came before it', async () => {
    const f = await foldedIssue()
    const folder = new CounterFolder(f.pool)
    const blocker = new pg.Client({ connectionString: f.url })
    await blocker.connect()
    try {
      await f.insertDelta(f.delta(1, 'u1'))
      // Holds the pending row, so the first fold's delete, once issued, waits for it.
      await blocker.query('BEGIN')
      await blocker.query('SELECT id FROM counter_deltas FOR UPDATE')
      const first = folder.flush()
      for (;;) {
        const waiting = await sql<{ n: string }>(
          f.url,
          `SELECT count(*) AS n FROM pg_stat_activity
           WHERE query LIKE '%DELETE FROM counter_deltas%' AND wait_event_type = 'Lock'`,
        )
        if (Number(waiting[0]?.n) > 0) break
        await new Promise((r) => setTimeout(r, 10))
      }
      // Acknowledged after that delete began: the first fold cannot see it.
      await f.insertDelta(f.delta(1, 'u3'))
      const second = folder.flush()
      await blocker.query('COMMIT')
      await second
      const c = await f.counts()
      expect([c.timesSeen, c.users, c.pending]).toEqual([3, 2, 0])
      await first
    } finally {
      await blocker.end()
      await f.close()
    }
  })

  it("three nodes' periodic folds take turns: about one per interval in all, not one per node", async () => {
    const f = await foldedIssue()
    // Three nodes' folders on one database (no other folder runs: foldedIssue closed its store).
    const pools = [1, 2, 3].map(() => openPool(f.url, 2))
    const folders = pools.map((p) => new CounterFolder(p))
    let written = 0
    try {
      for (const folder of folders) folder.start()
      const t0 = Date.now()
      // Deltas written meanwhile, so the folds have rows to take.
      while (Date.now() - t0 < 2_000) {
        await f.insertDelta(f.delta(1, `u${written % 3}`))
        written++
        await new Promise((r) => setTimeout(r, 20))
      }
      for (const folder of folders) await folder.close()
      const folds = folders.map((folder) => folder.stats.periodic)
      const all = folds.reduce((n, k) => n + k, 0)
      // 2 s at one turn per 150 ms at most is 14; three folders folding on every tick, 30.
      expect(all).toBeGreaterThanOrEqual(4)
      expect(all).toBeLessThanOrEqual(15)
      // Every delta counted once, whichever node folded it.
      const c = await f.counts()
      expect([c.timesSeen, c.pending]).toEqual([1 + written, 0])
    } finally {
      for (const folder of folders) await folder.close().catch(() => undefined)
      await Promise.all(pools.map((p) => p.end()))
      await f.close()
    }
  })

  it("gives a fold turn after PostgreSQL's clock was set back, and none twice within 150 ms", async () => {
    const f = await foldedIssue()
    try {
      // A stamp an hour ahead: what a turn taken before the clock went back an hour leaves.
      await sql(f.url, "UPDATE fold_turns SET started = clock_timestamp() + interval '1 hour'")
      expect(await foldTurn(f.pool)).toBe(true)
      expect(await foldTurn(f.pool)).toBe(false)
    } finally {
      await f.close()
    }
  })

  it('reads asked in one turn share one fold', async () => {
    const f = await foldedIssue()
    const folder = new CounterFolder(f.pool)
    let folds = 0
    f.pool.on('acquire', () => {
      folds++
    })
    try {
      await f.insertDelta(f.delta(2, 'u1'))
      await Promise.all(Array.from({ length: 20 }, () => folder.flush()))
      expect(folds).toBe(1)
      expect((await f.counts()).timesSeen).toBe(3)
      // A read asked after that fold ended gets a fold of its own.
      await f.insertDelta(f.delta(1, 'u1'))
      await folder.flush()
      expect(folds).toBe(2)
      expect((await f.counts()).timesSeen).toBe(4)
    } finally {
      await f.close()
    }
  })
})
