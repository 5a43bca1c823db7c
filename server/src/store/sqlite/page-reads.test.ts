import Database from 'better-sqlite3'
import { beforeAll, describe, expect, it } from 'vitest'
import { SCALE, writeScaleHistory } from '../../../test/support/scale-data.ts'
import { ISSUE_COUNT_CAP } from '../issue-store.ts'
import type { EventToWrite } from '../model.ts'
import { issueQueries } from '../queries/issues.ts'
import { projectQueries } from '../queries/projects.ts'
import { triageQueries } from '../queries/triage.ts'
import { uiReadQueries } from '../queries/ui-reads.ts'
import { sqliteIngest } from './ingest.ts'
import { loadMigrations, migrate } from './migrations.ts'
import { sqlitePort } from './sql-port.ts'

// Every statement the connection runs is traced while a read is measured, then its query plan
// is checked: a page read that lost its index (or its summary table) fails here, not at 1 M
// events in production.
let traced: string[] | undefined
const db = new Database(':memory:', { verbose: (sql) => traced?.push(String(sql)) })
migrate(db, await loadMigrations())
const port = sqlitePort(db)
const store = {
  ...projectQueries(port),
  ...sqliteIngest(db),
  ...issueQueries(port),
  ...uiReadQueries(port),
  ...triageQueries(port),
}
const END = Date.UTC(2026, 5, 1, 12, 30)
const HOUR = 3_600_000
const DAY = 24 * HOUR
let projectId = 0

/** Runs a read and returns its result with the query plan of every statement it ran. */
async function planned<T>(read: () => Promise<T>): Promise<{ result: T; plans: string[][] }> {
  traced = []
  const result = await read()
  const sqls = traced
  traced = undefined
  const plans = sqls.map((sql) =>
    db
      .prepare<[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
      .all()
      .map((r) => r.detail),
  )
  expect(plans.length).toBeGreaterThan(0)
  return { result, plans }
}

/**
 * No full scan of any table. `events` only where allowed (the issue page: one issue's newest rows
 * or one event, through an index), never for a list, filter, choice or count: those walk issues.
 */
function expectIndexed(plans: string[][], opts: { events: boolean } = { events: false }): void {
  for (const line of plans.flat()) {
    // A subquery (`capped` names the one of a capped count) is scanned; a table never.
    expect(line, line).not.toMatch(/^SCAN (?!\(subquery|capped$|CONSTANT ROW)/)
    if (!/\bevents\b/.test(line)) continue
    expect(opts.events, line).toBe(true)
    expect(line, line).toMatch(
      /^SEARCH events USING (COVERING INDEX events_issue|INDEX events_issue|INDEX sqlite_autoindex_events_1|INTEGER PRIMARY KEY)/,
    )
  }
}

const usesFacets = (plans: string[][]) =>
  expect(plans.flat().some((l) => /issue_facets/.test(l))).toBe(true)

beforeAll(async () => {
  const { project, key } = await store.createProject('scale', 'scale', 'a'.repeat(32))
  projectId = project.id
  await writeScaleHistory(store, project.id, key.id, END)
}, 60_000)

describe(`page reads over ${SCALE.events} events in ${SCALE.issues} issues`, () => {
  it('lists a page of issues through the issue index, with and without filters', async () => {
    const all = await planned(() => store.listIssues(projectId, {}, { limit: 50 }))
    expectIndexed(all.plans)
    expect(all.result.issues).toHaveLength(50)
    const tab = await planned(() =>
      store.listIssues(projectId, { status: 'unresolved', forReview: true }, { limit: 50 }),
    )
    expectIndexed(tab.plans)
    const next = await planned(() =>
      store.listIssues(projectId, { status: 'unresolved' }, { limit: 50, cursor: all.result.next }),
    )
    expectIndexed(next.plans)
    expect(next.result.issues[0]?.lastSeen).toBeLessThanOrEqual(
      all.result.issues[49]?.lastSeen ?? 0,
    )
    const text = await planned(() =>
      store.listIssues(projectId, { status: 'unresolved', query: 'issue 1999' }, { limit: 50 }),
    )
    expectIndexed(text.plans)
    expect(text.result.issues.map((i) => i.title)).toEqual(['TypeError: scale issue 1999'])
  })

  it('filters by environment, release and component through issue_facets', async () => {
    const staging: number[] = []
    let cursor: string | undefined
    do {
      const page = await planned(() =>
        store.listIssues(
          projectId,
          { status: 'unresolved', environment: 'staging' },
          { limit: 100, cursor },
        ),
      )
      expectIndexed(page.plans)
      usesFacets(page.plans)
      staging.push(...page.result.issues.map((i) => Number(i.title.split(' ').pop())))
      cursor = page.result.next
    } while (cursor !== undefined)
    expect(staging).toHaveLength(SCALE.issues / 10)
    expect(staging.every((n) => n % 10 === 0)).toBe(true)

    const release = await planned(() =>
      store.listIssues(projectId, { release: 'app@3', environment: 'production' }, { limit: 200 }),
    )
    expectIndexed(release.plans)
    expect(release.result.issues).toHaveLength(SCALE.issues / SCALE.releases)
    for (const miss of [{ environment: 'nowhere' }, { component: 'cli' }]) {
      const none = await planned(() => store.listIssues(projectId, miss, { limit: 50 }))
      expectIndexed(none.plans)
      usesFacets(none.plans)
      expect(none.result.issues).toEqual([])
    }
  })

  it('reads the filter choices and the tab counts without touching events', async () => {
    const facets = await planned(() => store.projectFacets(projectId))
    expectIndexed(facets.plans)
    usesFacets(facets.plans)
    expect(facets.result).toEqual({
      environments: ['production', 'staging'],
      releases: Array.from({ length: SCALE.releases }, (_, i) => `app@${i}`).sort(),
      components: [],
    })
    const counts = await planned(() => store.issueCountsByStatus(projectId))
    expectIndexed(counts.plans)
    expect(counts.result).toEqual({ unresolved: SCALE.issues, resolved: 0, ignored: 0 })
    const review = await planned(() => store.countForReview(projectId))
    expectIndexed(review.plans)
    expect(review.result).toBe(SCALE.issues)
  })

  it('reads the issue page: its events, one event, neighbours and the chart from issue_hours', async () => {
    const issue = (await store.listIssues(projectId, { query: 'issue 7' }, { limit: 1 })).issues[0]
    if (issue === undefined) throw new Error('no issue 7')
    const perIssue = SCALE.events / SCALE.issues
    const events = await planned(() => store.listIssueEvents(issue.id, { limit: 100 }))
    expectIndexed(events.plans, { events: true })
    expect(events.result.events).toHaveLength(perIssue)
    const newest = events.result.events[0]
    const middle = events.result.events[10]
    if (newest === undefined || middle === undefined) throw new Error('no events')
    const one = await planned(() => store.getEvent(projectId, middle.eventId))
    expectIndexed(one.plans, { events: true })
    const steps = await planned(() => store.eventNeighbours(issue.id, middle.eventId))
    expectIndexed(steps.plans, { events: true })
    expect(steps.result).toMatchObject({
      newer: events.result.events[9]?.eventId,
      older: events.result.events[11]?.eventId,
      newest: newest.eventId,
    })
    for (const [span, bucket] of [
      [DAY, HOUR],
      [14 * DAY, DAY],
      [90 * DAY, DAY],
    ] as const) {
      const since = Math.floor(END / bucket) * bucket - (span - bucket)
      const chart = await planned(() => store.issueHistogram(issue.id, since, bucket))
      expectIndexed(chart.plans)
      expect(chart.plans.flat().some((l) => /issue_hours/.test(l))).toBe(true)
      const expected = new Map<number, number>()
      for (const e of events.result.events) {
        if (e.received < since) continue
        const start = since + Math.floor((e.received - since) / bucket) * bucket
        expected.set(start, (expected.get(start) ?? 0) + 1)
      }
      expect(chart.result).toEqual(
        [...expected].sort((a, b) => a[0] - b[0]).map(([start, count]) => ({ start, count })),
      )
    }
  })

  it('stops counting a tab past the cap', async () => {
    const { project, key } = await store.createProject('many', 'many', 'b'.repeat(32))
    const events: EventToWrite[] = Array.from({ length: ISSUE_COUNT_CAP + 5 }, (_, n) => ({
      projectId: project.id,
      keyId: key.id,
      eventId: `c${n.toString(16).padStart(31, '0')}`,
      timestamp: END,
      received: END,
      level: 'error',
      title: `many ${n}`,
      culprit: '',
      type: null,
      value: null,
      release: null,
      environment: null,
      component: null,
      hash: `many-${n}`,
      groupingVersion: 'test',
      payload: '{}',
    }))
    await store.write([{ events, outcomes: [] }])
    expect(await store.issueCountsByStatus(project.id)).toEqual({
      unresolved: ISSUE_COUNT_CAP + 1,
      resolved: 0,
      ignored: 0,
    })
    expect(await store.countForReview(project.id)).toBe(ISSUE_COUNT_CAP + 1)
  })
})
