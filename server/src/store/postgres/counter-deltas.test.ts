import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { row } from '../../../test/store-contract/contract.ts'
import { pgNodesPerTest } from '../../../test/support/postgres-nodes.ts'
import { foldDeltas, mergeDeltas } from './counter-deltas.ts'

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
  it('sums groups per key; a touch keeps the text of its latest event', () => {
    const m = mergeDeltas([
      {
        touches: [[7, 2, 200, 'new', 'c2', 'error']],
        hours: [[7, 0, 2]],
        tags: [[7, 'user', 'u1', 2, 150, 200]],
        outcomes: [],
      },
      {
        touches: [
          [7, 3, 100, 'old', 'c1', 'warning'],
          [3, 1, 50, 't', 'c', 'info'],
        ],
        hours: [[7, 0, 3]],
        tags: [[7, 'user', 'u1', 1, 90, 100]],
        outcomes: [],
      },
    ])
    expect(m.touches).toEqual([
      [3, 1, 50, 't', 'c', 'info'],
      [7, 5, 200, 'new', 'c2', 'error'],
    ])
    expect(m.hours).toEqual([[7, 0, 5]])
    expect(m.tags).toEqual([[7, 'user', 'u1', 3, 90, 200]])
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
})
