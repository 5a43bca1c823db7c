/**
 * Quotas, 429 back-off, deduplication of resent envelopes and unsupported items, with stock
 * SDKs. A recording proxy sits between SDK and server, so what the SDK sent (and when) is seen
 * from outside the SDK; the server's outcome counters show what it made of it.
 */
import { afterAll, beforeAll, describe, type ExpectStatic, inject, it } from 'vitest'
import { Api } from '../harness/api.ts'
import { type Driver, loadDriver, runDriver } from '../harness/drivers.ts'
import { outcomeKeys, outcomeTotals, setQuota } from '../harness/outcomes.ts'
import {
  type RecordedRequest,
  type RecordingProxy,
  startRecordingProxy,
} from '../harness/recording-proxy.ts'
import { waitFor } from '../harness/wait.ts'

const serverUrl = inject('serverUrl')
const token = inject('adminToken')
const api = new Api(serverUrl, token)

/** The window the drivers assume (`WINDOW_SECONDS` in quota.mjs / quota.py). */
const WINDOW_SECONDS = 4
const LIMIT = /^(\d+):error:project:quota_exceeded$/

/** A driver description pointed at its quota program instead of send.*. */
function quotaDriver(name: string, program: string): Driver {
  const driver = loadDriver(name)
  const [runtime] = driver.command
  return { ...driver, command: [runtime ?? 'node', program] }
}

const node = quotaDriver('node', 'conformance/drivers/node/quota.mjs')
const python = quotaDriver('python', 'conformance/drivers/python/quota.py')

interface Target {
  label: string
  driver: Driver
  sdk?: string
}

const nodeTargets = (sdks: string[]): Target[] =>
  sdks.map((sdk) => ({ label: sdk, driver: node, sdk }))
const pythonTarget: Target = { label: 'sentry-sdk (python)', driver: python }

let proxy: RecordingProxy
beforeAll(async () => {
  proxy = await startRecordingProxy(serverUrl)
})
afterAll(async () => {
  await proxy.close()
})

/** Runs a scenario against a fresh project (through the proxy); returns what it needs. */
async function run(target: Target, scenario: string, quota: number | null) {
  const project = await api.createProject(`quota-${scenario}-${target.label}`)
  if (quota !== null) {
    await setQuota(serverUrl, token, project.id, { events: quota, window_seconds: WINDOW_SECONDS })
  }
  const dsn = proxy.dsnFor(project.dsn)
  const report = await runDriver(target.driver, {
    scenario,
    dsn,
    timeout: 40_000,
    ...(target.sdk === undefined ? {} : { sdk: target.sdk }),
  })
  const requests = (): RecordedRequest[] =>
    proxy.requests.filter((r) => r.path.startsWith(`/api/${project.id}/`))
  const outcomes = async () => outcomeKeys(await outcomeTotals(serverUrl, token, project.id))
  return { project, report, requests, outcomes }
}

async function expectStored(
  expect: ExpectStatic,
  projectId: number,
  ids: readonly string[],
  stored: boolean,
): Promise<void> {
  for (const id of ids) {
    const event = await api.event(projectId, id)
    expect(event === undefined ? 'absent' : 'stored', `event ${id}`).toBe(
      stored ? 'stored' : 'absent',
    )
  }
}

const skipped = (target: Target) => target.driver.missing

describe.concurrent.each([...nodeTargets(node.sdks), pythonTarget])('$label', (target) => {
  if (skipped(target) !== undefined) {
    it.skip(`driver unavailable: ${skipped(target)}`, () => {})
    return
  }

  it('429 back-off: stores exactly the quota, the SDK waits the announced time and reports what it held back', async ({
    expect,
  }) => {
    const { project, report, requests, outcomes } = await run(target, 'ratelimit', 3)
    const g = (label: string) => report.groups[label] ?? []
    expect(g('accepted')).toHaveLength(3)

    // The client report with the held-back events arrives as client_discard/ratelimit_backoff.
    const counted = await waitFor(
      async () => {
        const o = await outcomes()
        return (o['client_discard:ratelimit_backoff/error'] ?? 0) >= 3 ? o : undefined
      },
      { timeout: 10_000, message: 'ratelimit_backoff client report counted' },
    )
    expect(counted['accepted/error']).toBe(4)
    expect(counted['over_quota/error']).toBe(1)
    expect(counted['client_discard:ratelimit_backoff/error']).toBe(3)

    const eventRequests = requests().filter((r) => r.itemTypes.includes('event'))
    expect(eventRequests.map((r) => r.status)).toEqual([200, 200, 200, 429, 200])
    const limited = eventRequests[3] as RecordedRequest
    const after = eventRequests[4] as RecordedRequest
    expect(limited.retryAfter).toMatch(/^\d+$/)
    const seconds = Number(limited.retryAfter)
    expect(seconds).toBeGreaterThanOrEqual(1)
    expect(seconds).toBeLessThanOrEqual(WINDOW_SECONDS)
    expect(limited.rateLimits).toBe(`${seconds}:error:project:quota_exceeded`)
    // No event request reached the server during the announced time.
    expect(after.at).toBeGreaterThanOrEqual(limited.answeredAt + seconds * 1000)
    // Items that cost no quota got through meanwhile, and their 200 announced the limit.
    const report200 = requests().find(
      (r) => r.itemTypes.includes('client_report') && r.at > limited.at && r.at < after.at,
    )
    expect(report200?.status).toBe(200)
    expect(report200?.rateLimits).toMatch(LIMIT)

    await expectStored(expect, project.id, [...g('accepted'), ...g('after_window')], true)
    await expectStored(expect, project.id, [...g('refused'), ...g('held_back')], false)
  })
})

describe.concurrent.each([...nodeTargets(['@sentry/node']), pythonTarget])('$label', (target) => {
  if (skipped(target) !== undefined) {
    it.skip(`driver unavailable: ${skipped(target)}`, () => {})
    return
  }

  it('partial envelope: 50 events against a quota of 30, resent after the window: 50 stored once', async ({
    expect,
  }) => {
    const { project, report, requests, outcomes } = await run(target, 'partial', 30)
    const sent = report.groups['sent'] ?? []
    expect(sent).toHaveLength(50)
    const eventRequests = requests().filter((r) => r.itemTypes.includes('event'))
    expect(eventRequests.map((r) => r.status)).toEqual([429, 200])
    expect(eventRequests[0]?.itemTypes.filter((t) => t === 'event')).toHaveLength(50)
    expect(eventRequests[0]?.rateLimits).toMatch(LIMIT)

    await expectStored(expect, project.id, sent, true)
    const issues = await api.issues(project.id)
    expect(
      issues.reduce((n, i) => n + i.count, 0),
      'no event stored twice',
    ).toBe(50)
    const o = await outcomes()
    const errors = Object.fromEntries(Object.entries(o).filter(([k]) => k.endsWith('/error')))
    expect(errors).toEqual({ 'accepted/error': 50, 'duplicate/error': 30, 'over_quota/error': 20 })
    expect(
      Object.values(errors).reduce((a, b) => a + b, 0),
      'one outcome per item sent',
    ).toBe(100)
  })
})

describe.concurrent.each([
  ...nodeTargets(['@sentry/node', 'sentry-node-10', 'sentry-node-9']),
  pythonTarget,
])('$label', (target) => {
  if (skipped(target) !== undefined) {
    it.skip(`driver unavailable: ${skipped(target)}`, () => {})
    return
  }

  it('unsupported items: transactions, logs and attachments are counted, the event lands', async ({
    expect,
  }) => {
    const { project, report, requests, outcomes } = await run(target, 'unsupported', null)
    await expectStored(expect, project.id, report.groups['event'] ?? [], true)
    const o = await waitFor(
      async () => {
        const all = await outcomes()
        return all['unsupported:log/log_item'] !== undefined ? all : undefined
      },
      { timeout: 10_000, message: 'the log item is counted' },
    )
    expect(o['accepted/error']).toBe(1)
    expect(o['unsupported:transaction/transaction']).toBeGreaterThanOrEqual(1)
    expect(o['unsupported:log/log_item']).toBeGreaterThanOrEqual(1)
    expect(o['unsupported:attachment/attachment']).toBeGreaterThanOrEqual(1)
    // Every request was answered 200: unsupported items never fail an envelope.
    expect(
      requests()
        .map((r) => r.status)
        .filter((s) => s !== 200),
    ).toEqual([])
    const types = requests().flatMap((r) => r.itemTypes)
    for (const type of ['transaction', 'log', 'attachment']) {
      expect(o[`unsupported:${type}/${type === 'log' ? 'log_item' : type}`], type).toBe(
        types.filter((t) => t === type).length,
      )
    }
  })
})
