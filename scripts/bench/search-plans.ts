/**
 * `node --import tsx scripts/bench/search-plans.ts --sqlite FILE [--postgres URL]`: the query
 * plans of `--scale`'s twelve searches and of the tag distribution (search-timing.ts), on a
 * pre-filled database, through the store's own query code (queries/issue-search.ts). Plans do
 * not depend on machine noise the way HTTP timings do: PostgreSQL's are `EXPLAIN (ANALYZE,
 * BUFFERS)` with the median execution time of 5; SQLite's are `EXPLAIN QUERY PLAN` with the
 * median time of 5 runs of the statement itself. docs/search.md records what they showed.
 */
import { parseArgs } from 'node:util'
import Database from 'better-sqlite3'
import { parseQuery } from '../../server/src/search/query.ts'
import { openPool } from '../../server/src/store/postgres/db.ts'
import { postgresPort } from '../../server/src/store/postgres/sql-port.ts'
import { issueSearchQueries } from '../../server/src/store/queries/issue-search.ts'
import type { IssueSort } from '../../server/src/store/search-types.ts'
import type { SqlPort } from '../../server/src/store/sql/port.ts'
import type { Statement } from '../../server/src/store/sql/statement.ts'
import { sqlitePort } from '../../server/src/store/sqlite/sql-port.ts'
import { median } from './report.ts'
import { SEARCHES } from './search-timing.ts'

const RUNS = 5

/** A port that notes every read it is asked, then answers it from the real one. */
function noting(inner: SqlPort, seen: Statement[]): SqlPort {
  return {
    ...inner,
    all: async <T>(q: Statement) => {
      seen.push(q)
      return inner.all<T>(q)
    },
    first: async <T>(q: Statement) => {
      seen.push(q)
      return inner.first<T>(q)
    },
  }
}

const prefixed = (prefix: string, q: Statement): Statement => ({
  parts: [prefix + (q.parts[0] ?? ''), ...q.parts.slice(1)],
  values: q.values,
})

/** The plan of one statement and its median execution time, ms. */
async function explain(port: SqlPort, q: Statement): Promise<{ plan: string; ms: number }> {
  if (port.dialect === 'postgres') {
    const times: number[] = []
    let plan = ''
    for (let i = 0; i < RUNS; i++) {
      const rows = await port.all<{ 'QUERY PLAN': string }>(
        prefixed('EXPLAIN (ANALYZE, BUFFERS) ', q),
      )
      plan = rows.map((r) => r['QUERY PLAN']).join('\n')
      const m = /Execution Time: ([\d.]+) ms/.exec(plan)
      times.push(Number(m?.[1] ?? Number.NaN))
    }
    return { plan, ms: median(times) }
  }
  const rows = await port.all<{ id: number; parent: number; detail: string }>(
    prefixed('EXPLAIN QUERY PLAN ', q),
  )
  const depth = new Map<number, number>([[0, 0]])
  const plan = rows
    .map((r) => {
      const d = (depth.get(r.parent) ?? 0) + 1
      depth.set(r.id, d)
      return `${'  '.repeat(d - 1)}${r.detail}`
    })
    .join('\n')
  const times: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now()
    await port.all(q)
    times.push(performance.now() - t0)
  }
  return { plan, ms: median(times) }
}

/** Plans and times of every search and of the distribution on one backend. */
async function plans(port: SqlPort, label: string, verbose: boolean): Promise<void> {
  const big = await port.first<{ id: number | string; project_id: number | string }>({
    parts: ['SELECT id, project_id FROM issues ORDER BY times_seen DESC LIMIT 1'],
    values: [],
  })
  if (big === undefined) throw new Error('search plans: the database has no issue')
  const cases: { name: string; run: (p: SqlPort) => Promise<unknown> }[] = [
    ...SEARCHES.map((s) => ({
      name: s.query + (s.sort === undefined ? '' : ` (sort=${s.sort})`),
      run: (p: SqlPort) =>
        issueSearchQueries(p).searchIssues(
          Number(big.project_id),
          parseQuery(s.query, Date.now()),
          (s.sort ?? 'last_seen') as IssueSort,
          { limit: 50 },
        ),
    })),
    {
      name: `tag distribution of issue ${big.id}`,
      run: (p: SqlPort) => issueSearchQueries(p).tagDistribution(Number(big.id), 10),
    },
  ]
  console.log(`## ${label}`)
  for (const c of cases) {
    const seen: Statement[] = []
    await c.run(noting(port, seen))
    let total = 0
    const parts: string[] = []
    for (const q of seen) {
      const e = await explain(port, q)
      total += e.ms
      parts.push(e.plan)
    }
    console.log(`${c.name.padEnd(60)} ${total.toFixed(1)} ms (${seen.length} statements)`)
    if (verbose) console.log(`${parts.join('\n--\n')}\n`)
  }
}

const { values: opts } = parseArgs({
  options: {
    sqlite: { type: 'string' },
    postgres: { type: 'string' },
    verbose: { type: 'boolean', default: false },
  },
})
if (opts.sqlite !== undefined) {
  const db = new Database(opts.sqlite, { readonly: true, fileMustExist: true })
  try {
    await plans(sqlitePort(db), `SQLite ${opts.sqlite}`, opts.verbose)
  } finally {
    db.close()
  }
}
if (opts.postgres !== undefined) {
  const pool = openPool(opts.postgres, 2)
  try {
    await plans(postgresPort(pool), 'PostgreSQL', opts.verbose)
  } finally {
    await pool.end()
  }
}
