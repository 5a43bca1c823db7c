import { describe, expect, it } from 'vitest'
import { row } from '../../../test/store-contract/contract.ts'
import { pgNodesPerTest } from '../../../test/support/postgres-nodes.ts'
import { GroupCommitter } from '../group-commit.ts'
import type { WriteUnit } from '../ingest-store.ts'
import { decodePayload } from '../payload-codec.ts'

/** Two stores on one database: two server nodes, each with its own pool. */
const twoNodes = pgNodesPerTest()

const HASHES = Array.from({ length: 12 }, (_, i) => `h${i}`)

describe('ingest on PostgreSQL under concurrency', () => {
  it('groups written at once on two nodes make one issue per hash and lose no count', async () => {
    const { a, b, project, key } = await twoNodes()
    // Each group touches every hash, half of them in reverse order: without a stable lock
    // order these deadlock, without ON CONFLICT on the hash two issues would appear.
    const group = (i: number): WriteUnit[] => {
      const order = i % 2 === 0 ? HASHES : [...HASHES].reverse()
      return order.map((h) => ({ events: [row(project.id, key.id, h)], outcomes: [] }))
    }
    const writes = Array.from({ length: 16 }, (_, i) => (i % 2 === 0 ? a : b).write(group(i)))
    const results = await Promise.all(writes)
    const events = results.flat().flatMap((u) => u.events)
    expect(events.every((e) => !e.duplicate)).toBe(true)
    expect(events.filter((e) => e.issueCreated)).toHaveLength(HASHES.length)
    const { issues } = await a.listIssues(project.id, {}, { limit: 100 })
    expect(issues).toHaveLength(HASHES.length)
    expect(issues.map((i) => i.timesSeen)).toEqual(HASHES.map(() => 16))
    const accepted = await a.outcomeTotals(project.id, 0, Number.MAX_SAFE_INTEGER)
    expect(accepted).toEqual([
      { outcome: 'accepted', reason: '', category: 'error', quantity: 16 * HASHES.length },
    ])
  })

  it('stores an event sent to two nodes at once exactly once', async () => {
    const { a, b, project, key } = await twoNodes()
    const e = row(project.id, key.id, 'same')
    const [ra, rb] = await Promise.all([
      a.write([{ events: [e], outcomes: [] }]),
      b.write([{ events: [e], outcomes: [] }]),
    ])
    const dup = [ra?.[0]?.events[0]?.duplicate, rb?.[0]?.events[0]?.duplicate]
    expect(dup.sort()).toEqual([false, true])
    expect(
      (
        await a.listIssueEvents(ra?.[0]?.events[0]?.issueId || rb?.[0]?.events[0]?.issueId || 0, {
          limit: 10,
        })
      ).events,
    ).toHaveLength(1)
  })

  it('a unit that cannot be written fails alone; the others of its group commit', async () => {
    const { a, project, key } = await twoNodes()
    const committer = new GroupCommitter(a, { delayMs: 20, maxInFlight: 4 })
    // An issue of a project that does not exist violates its foreign key.
    const bad = committer.write({ events: [row(999_999, key.id, 'x')], outcomes: [] })
    const good = [1, 2, 3].map((i) =>
      committer.write({ events: [row(project.id, key.id, `g${i}`)], outcomes: [] }),
    )
    await expect(bad).rejects.toThrow(/foreign key/)
    const ok = await Promise.all(good)
    expect(ok.map((r) => r.events[0]?.issueCreated)).toEqual([true, true, true])
  })

  it("answers each stored event with its row's id (the live notices are named by it)", async () => {
    const { a, project, key } = await twoNodes()
    const [r] = await a.write([
      { events: ['r1', 'r2', 'r1'].map((h) => row(project.id, key.id, h)), outcomes: [] },
    ])
    const got = (r?.events ?? []).map((e) => [e.eventId, e.rowId] as const)
    const rows = await a.pool.query<{ event_id: string; id: number }>(
      'SELECT event_id, id::int AS id FROM events ORDER BY id',
    )
    expect(got).toHaveLength(3)
    expect(new Map(got)).toEqual(new Map(rows.rows.map((x) => [x.event_id, x.id])))
  })

  it("stores each event of a group with its own payload, cut from the group's one binary parameter", async () => {
    const { a, project, key } = await twoNodes()
    // Sizes around nothing, one byte, the deflate fallback threshold and a large one.
    const payloads = [
      '{}',
      '{"a":1}',
      JSON.stringify({ s: 'x'.repeat(70_000) }),
      '{"b":"é\\u0000"}',
    ]
    const events = payloads.map((payload, i) => row(project.id, key.id, `p${i % 2}`, { payload }))
    const sent = new Map(events.map((e, i) => [e.eventId, payloads[i]]))
    const [r] = await a.write([{ events, outcomes: [] }])
    expect(r?.events).toHaveLength(payloads.length)
    // The group is written in hash order, not in the order sent: each payload by its event.
    const stored = await a.pool.query<{ event_id: string; payload: Buffer }>(
      'SELECT event_id, payload FROM events',
    )
    expect(new Map(stored.rows.map((x) => [x.event_id, decodePayload(x.payload)]))).toEqual(sent)
  })

  it("writes an issue's events while another transaction holds the issue's row lock", async () => {
    const { a, project, key } = await twoNodes()
    const [first] = await a.write([{ events: [row(project.id, key.id, 'locked')], outcomes: [] }])
    const issueId = first?.events[0]?.issueId ?? 0
    const holder = await a.pool.connect()
    try {
      await holder.query('BEGIN')
      // FOR UPDATE conflicts with FOR KEY SHARE, which a foreign key's check of every inserted
      // event takes on its issue (migration 015 dropped it): the write would wait for this lock.
      await holder.query('SELECT 1 FROM issues WHERE id = $1 FOR UPDATE', [issueId])
      const write = a.write([
        {
          events: [row(project.id, key.id, 'locked'), row(project.id, key.id, 'locked')],
          outcomes: [],
        },
      ])
      const waited = new Promise<'waited'>((r) => setTimeout(() => r('waited'), 5_000).unref())
      const got = await Promise.race([write, waited])
      expect(got).not.toBe('waited')
      const events = got === 'waited' ? [] : (got[0]?.events ?? [])
      expect(events.map((e) => [e.issueId, e.duplicate])).toEqual([
        [issueId, false],
        [issueId, false],
      ])
      await holder.query('ROLLBACK')
      await write
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined)
      holder.release()
    }
    const { issues } = await a.listIssues(project.id, {}, { limit: 10 })
    expect(issues.map((i) => [i.id, i.timesSeen])).toEqual([[issueId, 3]])
  })

  it("writes an issue's facets once committed, and again after a group holding them rolled back", async () => {
    const { a, b, project, key } = await twoNodes()
    const facets = async () =>
      (
        await a.pool.query<{ kind: string; value: string }>(
          'SELECT kind, value FROM issue_facets ORDER BY kind, value',
        )
      ).rows.map((r) => `${r.kind}=${r.value}`)
    // The facets insert of a group whose environment is "refused" fails, so its transaction
    // rolls back after the group's facets were sent.
    await a.pool.query(`CREATE FUNCTION refuse_facet() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.value = 'refused' THEN RAISE EXCEPTION 'facet refused'; END IF; RETURN NEW; END $$`)
    await a.pool.query(
      'CREATE TRIGGER refuse_facet BEFORE INSERT ON issue_facets FOR EACH ROW EXECUTE FUNCTION refuse_facet()',
    )
    const ev = (environment: string, release = 'r@2') =>
      row(project.id, key.id, 'faceted', { release, environment })
    // The issue exists first: a rolled-back group then leaves it as it was.
    await a.write([{ events: [ev('production', 'r@1')], outcomes: [] }])
    await a.pool.query('DELETE FROM issue_facets')
    await expect(a.write([{ events: [ev('refused')], outcomes: [] }])).rejects.toThrow(
      /facet refused/,
    )
    expect(await facets()).toEqual([])
    // The release of the rolled-back group is written with the next group that names it.
    await a.write([{ events: [ev('staging')], outcomes: [] }])
    expect(await facets()).toEqual(['environment=staging', 'release=r@2'])
    // Committed facets are not sent again by this node (a row is only removed with its
    // issue); another node, which has not seen them, sends them.
    await a.pool.query('DELETE FROM issue_facets')
    await a.write([{ events: [ev('staging')], outcomes: [] }])
    expect(await facets()).toEqual([])
    await b.write([{ events: [ev('staging')], outcomes: [] }])
    expect(await facets()).toEqual(['environment=staging', 'release=r@2'])
  })

  it('stores client strings with NUL and fractional milliseconds that PostgreSQL types refuse', async () => {
    const { a, project, key } = await twoNodes()
    const e = row(project.id, key.id, 'nul', {
      title: 'Type\u0000Error',
      timestamp: 1_790_000_000_000.4,
    })
    const [r] = await a.write([{ events: [e], outcomes: [] }])
    const issue = await a.getIssue(r?.events[0]?.issueId ?? 0)
    expect(issue?.title).toBe('Type\uFFFDError')
  })
})

describe('the event quota on PostgreSQL with two nodes', () => {
  it('stores exactly the quota from groups written at once on two nodes', async () => {
    const { a, b, project, key } = await twoNodes()
    await a.setQuota(project.id, { events: 25, windowSeconds: 3600 })
    const writes = Array.from({ length: 12 }, (_, i) =>
      (i % 2 === 0 ? a : b).write(
        Array.from({ length: 2 }, (_, u) => ({
          events: [0, 1, 2].map((n) =>
            row(project.id, key.id, `h${n}`, {
              eventId: (i * 100 + u * 10 + n).toString(16).padStart(32, '0'),
            }),
          ),
          outcomes: [],
        })),
      ),
    )
    const units = (await Promise.all(writes)).flat()
    const stored = units.flatMap((u) => u.events).filter((e) => !e.duplicate)
    expect(stored).toHaveLength(25)
    expect(units.reduce((n, u) => n + (u.quota?.refused ?? 0), 0)).toBe(72 - 25)
    const totals = await a.outcomeTotals(project.id, 0, Number.MAX_SAFE_INTEGER)
    expect(totals).toContainEqual({
      outcome: 'over_quota',
      reason: 'quota_exceeded',
      category: 'error',
      quantity: 72 - 25,
    })
    expect(totals).toContainEqual({
      outcome: 'accepted',
      reason: '',
      category: 'error',
      quantity: 25,
    })
  })
})
