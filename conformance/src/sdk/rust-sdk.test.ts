/**
 * The first-party Rust SDK (sdk-rust) against the real server: natively through
 * `examples/conformance.rs` (driver `rust-sdk`), and built for wasm32-unknown-unknown with the
 * `web` feature and run in Node (driver `rust-wasm`). The binaries are built here with
 * `scripts/test-rust.mjs --build` (cargo caches under sdk-rust/target, tools under .cache/).
 * The browser build is in rust-wasm-browser.test.ts.
 */
import { afterAll, beforeAll, describe, type ExpectStatic, inject, it } from 'vitest'
import { z } from 'zod'
import { Api, type StoredEvent } from '../harness/api.ts'
import { type Driver, runDriver } from '../harness/drivers.ts'
import { HealthApi } from '../harness/health-crons.ts'
import { outcomeKeys, outcomeTotals, setQuota } from '../harness/outcomes.ts'
import { type RecordingProxy, startRecordingProxy } from '../harness/recording-proxy.ts'
import { RUST_BUILD_TIMEOUT as BUILD_TIMEOUT, buildRustDriver } from '../harness/rust-builds.ts'
import { waitFor } from '../harness/wait.ts'
import { checkGrouping } from './grouping.ts'

/** The parts of a stored panic event the test reads. */
const panicShape = z.looseObject({
  exception: z.looseObject({
    values: z.array(
      z.looseObject({
        stacktrace: z.looseObject({
          frames: z.array(
            z.looseObject({ function: z.string().optional(), in_app: z.boolean().optional() }),
          ),
        }),
      }),
    ),
  }),
})

/** The breadcrumbs of a stored event. */
const breadcrumbShape = z.looseObject({
  breadcrumbs: z.looseObject({
    values: z.array(
      z.looseObject({
        category: z.string().optional(),
        message: z.string().optional(),
        level: z.string().optional(),
      }),
    ),
  }),
})

const serverUrl = inject('serverUrl')
const token = inject('adminToken')
const api = new Api(serverUrl, token)
const health = new HealthApi(serverUrl, token)

const RELEASE = 'rust-conformance@1.0.0'
/** The quota window `examples/conformance.rs` assumes for its `ratelimit` scenario. */
const WINDOW_SECONDS = 4

/** Fetches every event of a report, failing on any that is not retrievable. */
async function storedEvents(projectId: number, ids: readonly string[]): Promise<StoredEvent[]> {
  return Promise.all(
    ids.map((id) =>
      waitFor(() => api.event(projectId, id), { timeout: 10_000, message: `event ${id}` }),
    ),
  )
}

/** One id of a report group, failing clearly when the driver did not report it. */
function only(expect: ExpectStatic, ids: string[] | undefined, label: string): string {
  expect(ids, `${label} ids`).toHaveLength(1)
  return ids?.[0] ?? ''
}

describe('ingest-sdk (rust, native)', () => {
  let driver: Driver
  let proxy: RecordingProxy
  beforeAll(async () => {
    driver = await buildRustDriver('conformance', 'rust-sdk')
    proxy = await startRecordingProxy(serverUrl)
  }, BUILD_TIMEOUT)
  afterAll(async () => {
    await proxy?.close()
  })

  it('grouping: one exception issue and one message issue, two events each', async ({ expect }) => {
    await checkGrouping(expect, api, driver, undefined, {
      exceptionTitle: 'conformance::ConformanceError: conformance boom',
    })
  })

  it('full: errors group, the panic crashes the session, tracing breadcrumbs and check-ins land', async ({
    expect,
  }) => {
    const project = await api.createProject('rust-sdk-full')
    const report = await runDriver(driver, { scenario: 'full', dsn: project.dsn, timeout: 30_000 })
    const errors = report.groups['exception'] ?? []
    expect(errors).toHaveLength(2)
    const messageId = only(expect, report.groups['message'], 'message')
    const panicId = only(expect, report.groups['panic'], 'panic')
    const tracingId = only(expect, report.groups['tracing'], 'tracing')

    // Guard drop flushed everything: each event is stored, and the same error twice is one
    // issue with count 2 next to three single-event issues.
    const events = await storedEvents(project.id, report.event_ids)
    const issueOf = new Map(events.map((e) => [e.event_id, String(e.issue_id)]))
    expect(issueOf.get(errors[0] ?? '')).toBe(issueOf.get(errors[1] ?? ''))
    expect(new Set(issueOf.values()).size).toBe(4)
    const issues = await api.issues(project.id)
    const errorIssue = issues.find((i) => String(i.id) === issueOf.get(errors[0] ?? ''))
    expect(errorIssue).toMatchObject({
      title: 'conformance::ConformanceError: conformance boom',
      level: 'error',
      count: 2,
    })
    const byId = new Map(events.map((e) => [e.event_id, e]))
    expect(byId.get(messageId)).toMatchObject({ level: 'info', release: RELEASE })

    const panic = byId.get(panicId)
    expect(panic).toMatchObject({
      level: 'fatal',
      platform: 'native',
      environment: 'test',
      exception: {
        values: [
          {
            type: 'panic',
            value: 'conformance panic in a thread',
            mechanism: { type: 'panic', handled: false },
          },
        ],
      },
    })
    const frames = panicShape.parse(panic).exception.values[0]?.stacktrace.frames ?? []
    expect(frames.at(-1)?.function, 'crash site is the panicking closure').toMatch(
      /^conformance::full::/,
    )
    expect(frames.at(-1)?.in_app).toBe(true)

    const tracing = byId.get(tracingId)
    expect(tracing).toMatchObject({ level: 'error', logger: 'conformance' })
    expect(JSON.stringify(tracing)).toContain('conformance tracing failure')
    const crumbs = breadcrumbShape.parse(tracing).breadcrumbs.values
    expect(crumbs.map((c) => [c.category, c.message, c.level])).toEqual([
      ['conformance', 'conformance step one', 'info'],
      ['conformance', 'conformance step two', 'info'],
    ])

    // The panic ended the process session as crashed (errors before it were counted).
    const h = await waitFor(() => health.releaseHealth(project.id, RELEASE), {
      timeout: 10_000,
      message: `health of ${RELEASE}`,
    })
    expect(h).toMatchObject({ sessions: 1, sessions_crashed: 1, crash_free_sessions: 0 })

    const runs = await waitFor(
      async () => {
        const list = await health.runs(project.id, 'rust-conformance-job')
        return list.length > 0 && list[0]?.status === 'ok' ? list : undefined
      },
      { timeout: 10_000, message: 'the check-in run closed ok' },
    )
    expect(runs).toHaveLength(1)
    // The API reports durations in milliseconds (the SDK sent 1.5 s).
    expect(runs[0]).toMatchObject({ status: 'ok', environment: 'test', duration: 1500 })
    const monitor = (await health.monitors(project.id)).find(
      (m) => m.slug === 'rust-conformance-job',
    )
    expect(monitor).toMatchObject({
      schedule: { type: 'crontab', value: '*/5 * * * *' },
      checkin_margin: 1,
      max_runtime: 5,
      timezone: 'UTC',
    })
  })

  it('429 back-off: stores exactly the quota, holds back during the announced time, reports the rest', async ({
    expect,
  }) => {
    const project = await api.createProject('rust-sdk-ratelimit')
    await setQuota(serverUrl, token, project.id, { events: 3, window_seconds: WINDOW_SECONDS })
    const report = await runDriver(driver, {
      scenario: 'ratelimit',
      dsn: proxy.dsnFor(project.dsn),
      timeout: 40_000,
    })
    const g = (label: string) => report.groups[label] ?? []
    expect(g('accepted')).toHaveLength(3)

    const outcomes = await waitFor(
      async () => {
        const o = outcomeKeys(await outcomeTotals(serverUrl, token, project.id))
        return (o['client_discard:ratelimit_backoff/error'] ?? 0) >= 3 ? o : undefined
      },
      { timeout: 10_000, message: 'ratelimit_backoff client reports counted' },
    )
    expect(outcomes['accepted/error']).toBe(4)
    expect(outcomes['over_quota/error']).toBe(1)
    expect(outcomes['client_discard:ratelimit_backoff/error']).toBe(3)

    const requests = proxy.requests.filter((r) => r.path.startsWith(`/api/${project.id}/`))
    const eventRequests = requests.filter((r) => r.itemTypes.includes('event'))
    expect(eventRequests.map((r) => r.status)).toEqual([200, 200, 200, 429, 200])
    const limited = eventRequests[3]
    const after = eventRequests[4]
    const seconds = Number(limited?.retryAfter)
    expect(limited?.rateLimits).toBe(`${seconds}:error:project:quota_exceeded`)
    expect(after?.at ?? 0).toBeGreaterThanOrEqual((limited?.answeredAt ?? 0) + seconds * 1000)
    // The held-back events went out as standalone client reports on each flush.
    const reports = requests.filter(
      (r) => r.itemTypes.join() === 'client_report' && r.at > (limited?.at ?? 0),
    )
    expect(reports.length).toBeGreaterThanOrEqual(1)
    for (const id of [...g('refused'), ...g('held_back')]) {
      expect(await api.event(project.id, id), `event ${id} is not stored`).toBeUndefined()
    }
    await storedEvents(project.id, [...g('accepted'), ...g('after_window')])
  })
})

describe('ingest-sdk (rust, wasm32 in node)', () => {
  let driver: Driver
  beforeAll(async () => {
    driver = await buildRustDriver('wasm', 'rust-wasm')
  }, BUILD_TIMEOUT)

  it('an error captured through fetch lands on the issue list', async ({ expect }) => {
    const project = await api.createProject('rust-wasm-error')
    const report = await runDriver(driver, { scenario: 'error', dsn: project.dsn })
    const id = only(expect, report.groups['exception'], 'exception')
    const issues = await waitFor(
      async () => {
        const list = await api.issues(project.id)
        return list.length > 0 ? list : undefined
      },
      { timeout: 10_000, message: 'the wasm error on the issue list' },
    )
    expect(issues).toHaveLength(1)
    expect(issues[0]).toMatchObject({
      title: 'wasm_node::ConformanceError: conformance boom',
      level: 'error',
      count: 1,
    })
    const [event] = await storedEvents(project.id, [id])
    expect(event).toMatchObject({
      release: 'wasm-conformance@1.0.0',
      tags: expect.arrayContaining([['runtime', 'wasm']]),
      breadcrumbs: { values: [{ message: 'wasm breadcrumb' }] },
    })
  })

  it('grouping: one exception issue and one message issue, two events each', async ({ expect }) => {
    await checkGrouping(expect, api, driver, undefined, {
      exceptionTitle: 'wasm_node::ConformanceError: conformance boom',
    })
  })
})
