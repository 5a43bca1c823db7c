/**
 * The stock Rust SDK (the `sentry` crate, newest on crates.io, ureq transport) against the real
 * server: conformance/drivers/rust-stock, built here with `scripts/test-rust.mjs --build`.
 */
import { execa } from 'execa'
import { afterAll, beforeAll, describe, inject, it } from 'vitest'
import { Api } from '../harness/api.ts'
import { type Driver, loadDriver, runDriver } from '../harness/drivers.ts'
import { outcomeKeys, outcomeTotals, setQuota } from '../harness/outcomes.ts'
import { repoRoot } from '../harness/paths.ts'
import { type RecordingProxy, startRecordingProxy } from '../harness/recording-proxy.ts'
import { waitFor } from '../harness/wait.ts'
import { checkGrouping } from './grouping.ts'

const serverUrl = inject('serverUrl')
const token = inject('adminToken')
const api = new Api(serverUrl, token)

/** A cold build compiles the sentry crate and its dependencies. */
const BUILD_TIMEOUT = 15 * 60_000
/** The quota window the driver's `ratelimit` scenario assumes. */
const WINDOW_SECONDS = 4

describe('sentry (rust, stock)', () => {
  let driver: Driver
  let proxy: RecordingProxy
  beforeAll(async () => {
    const result = await execa(
      process.execPath,
      ['scripts/test-rust.mjs', '--build', 'rust-stock'],
      { cwd: repoRoot, reject: false, all: true, stdin: 'ignore' },
    )
    if (result.exitCode !== 0) {
      throw new Error(`scripts/test-rust.mjs --build rust-stock failed:\n${result.all}`)
    }
    driver = loadDriver('rust-stock')
    if (driver.missing !== undefined) throw new Error(`rust-stock: ${driver.missing}`)
    proxy = await startRecordingProxy(serverUrl)
  }, BUILD_TIMEOUT)
  afterAll(async () => {
    await proxy?.close()
  })

  it('grouping: one exception issue and one message issue, two events each', async ({ expect }) => {
    // The stock SDK names the type from the error's Debug output.
    await checkGrouping(expect, api, driver, undefined, {
      exceptionTitle: 'ConformanceError: conformance boom',
    })
  })

  it('429 back-off: stores exactly the quota and reports held-back events with the next envelope', async ({
    expect,
  }) => {
    const project = await api.createProject('rust-stock-ratelimit')
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
      { timeout: 10_000, message: 'ratelimit_backoff client report counted' },
    )
    expect(outcomes['accepted/error']).toBe(4)
    expect(outcomes['over_quota/error']).toBe(1)
    expect(outcomes['client_discard:ratelimit_backoff/error']).toBe(3)

    const requests = proxy.requests.filter((r) => r.path.startsWith(`/api/${project.id}/`))
    const eventRequests = requests.filter((r) => r.itemTypes.includes('event'))
    expect(eventRequests.map((r) => r.status)).toEqual([200, 200, 200, 429, 200])
    // sentry-rust sends client reports only with the next envelope: the after-window event.
    expect(eventRequests[4]?.itemTypes).toContain('client_report')
    const limited = eventRequests[3]
    const seconds = Number(limited?.retryAfter)
    expect(eventRequests[4]?.at ?? 0).toBeGreaterThanOrEqual(
      (limited?.answeredAt ?? 0) + seconds * 1000,
    )
    for (const id of [...g('refused'), ...g('held_back')]) {
      expect(await api.event(project.id, id), `event ${id} is not stored`).toBeUndefined()
    }
    for (const id of [...g('accepted'), ...g('after_window')]) {
      expect(await api.event(project.id, id), `event ${id} is stored`).toBeDefined()
    }
  })
})
