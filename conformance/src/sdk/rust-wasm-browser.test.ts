/**
 * The first-party Rust SDK built for wasm32-unknown-unknown with the `web` feature, packaged by
 * `wasm-bindgen --target web` and run in headless Chromium (driver `rust-wasm/browser`): the page
 * is served from `localhost` while the server is `127.0.0.1`, so every envelope is a cross-origin
 * `fetch` whose `X-Sentry-Auth` and envelope `Content-Type` need a CORS preflight. The module is
 * built here with `scripts/test-rust.mjs --build wasm-web`.
 */
import { afterAll, beforeAll, describe, inject, it } from 'vitest'
import { Api } from '../harness/api.ts'
import { type Driver, runDriver } from '../harness/drivers.ts'
import { outcomeKeys, outcomeTotals, setQuota } from '../harness/outcomes.ts'
import { type RecordingProxy, startRecordingProxy } from '../harness/recording-proxy.ts'
import { buildRustDriver, RUST_BUILD_TIMEOUT } from '../harness/rust-builds.ts'
import { waitFor } from '../harness/wait.ts'
import { checkGrouping } from './grouping.ts'

const serverUrl = inject('serverUrl')
const token = inject('adminToken')
const api = new Api(serverUrl, token)

const TITLE = 'wasm_web::ConformanceError: conformance boom'

describe('ingest-sdk (rust, wasm32 in Chromium)', () => {
  let driver: Driver
  // Between the page and the server: records the preflights and answers the browser saw.
  let proxy: RecordingProxy
  beforeAll(async () => {
    driver = await buildRustDriver('wasm-web', 'rust-wasm/browser')
    proxy = await startRecordingProxy(serverUrl)
  }, RUST_BUILD_TIMEOUT)
  afterAll(async () => {
    await proxy?.close()
  })

  /** What the proxy recorded for one project, in order. */
  const requestsOf = (projectId: number) =>
    proxy.requests.filter((r) => r.path === `/api/${projectId}/envelope/`)

  it('an error captured in the page lands on the issue list, after a CORS preflight', async ({
    expect,
  }) => {
    const project = await api.createProject('rust-wasm-browser-error')
    const report = await runDriver(driver, {
      scenario: 'error',
      dsn: proxy.dsnFor(project.dsn),
      timeout: 30_000,
    })
    expect(report.groups['exception']).toHaveLength(1)
    const id = report.groups['exception']?.[0] ?? ''

    const issues = await waitFor(
      async () => {
        const list = await api.issues(project.id)
        return list.length > 0 ? list : undefined
      },
      { timeout: 10_000, message: 'the browser error on the issue list' },
    )
    expect(issues).toHaveLength(1)
    expect(issues[0]).toMatchObject({ title: TITLE, level: 'error', count: 1 })
    const event = await api.event(project.id, id)
    expect(event).toMatchObject({
      issue_id: issues[0]?.id,
      release: 'wasm-browser@1.0.0',
      environment: 'test',
      tags: expect.arrayContaining([['runtime', 'browser']]),
      breadcrumbs: { values: [{ message: 'browser breadcrumb' }] },
    })

    // The browser asked first (the DSN carries the key only in X-Sentry-Auth, so the event
    // being stored also shows that header passed the preflight), then posted the event with
    // the session's start and, on close, the session's end (both in flight at once: the
    // proxy lists them in the order the server answered).
    const requests = requestsOf(project.id)
    expect(requests[0]).toMatchObject({ method: 'OPTIONS', status: 204 })
    const posts = requests.filter((r) => r.method === 'POST')
    expect(posts.map((r) => `${r.itemTypes.join('+')} ${r.status}`).sort()).toEqual([
      'event+session 200',
      'session 200',
    ])
  })

  it('grouping: one exception issue and one message issue, two events each', async ({ expect }) => {
    await checkGrouping(expect, api, driver, undefined, { exceptionTitle: TITLE })
  })

  it('429: the page reads X-Sentry-Rate-Limits cross-origin and holds back only errors', async ({
    expect,
  }) => {
    const project = await api.createProject('rust-wasm-browser-ratelimit')
    await setQuota(serverUrl, token, project.id, { events: 1, window_seconds: 3600 })
    const report = await runDriver(driver, {
      scenario: 'ratelimit',
      dsn: proxy.dsnFor(project.dsn),
      timeout: 30_000,
    })
    const [accepted, refused, heldBack] = ['accepted', 'refused', 'held_back'].map((label) => {
      expect(report.groups[label], label).toHaveLength(1)
      return report.groups[label]?.[0] ?? ''
    })

    // The held-back error never left the page; its client report and the session's end did.
    // Had the exposed header been unreadable, the 429 would have limited every category for
    // 60 s (the SDK's default) and neither would have been sent.
    const posts = requestsOf(project.id).filter((r) => r.method === 'POST')
    expect(posts.map((r) => [r.itemTypes, r.status])).toEqual([
      [['event', 'session'], 200],
      [['event'], 429],
      [['client_report'], 200],
      [['session'], 200],
    ])
    expect(posts[1]?.rateLimits).toMatch(/^\d+:error:project:quota_exceeded$/)

    const outcomes = await waitFor(
      async () => {
        const o = outcomeKeys(await outcomeTotals(serverUrl, token, project.id))
        return o['client_discard:ratelimit_backoff/error'] === undefined ? undefined : o
      },
      { timeout: 10_000, message: 'the ratelimit_backoff client report counted' },
    )
    expect(outcomes).toEqual({
      'accepted/error': 1,
      'over_quota/error': 1,
      'client_discard:ratelimit_backoff/error': 1,
      'accepted/session': 2,
      'accepted/internal': 1,
    })
    expect(await api.event(project.id, accepted ?? '')).toBeDefined()
    expect(await api.event(project.id, refused ?? '')).toBeUndefined()
    expect(await api.event(project.id, heldBack ?? '')).toBeUndefined()
  })
})
