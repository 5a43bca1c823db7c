/**
 * A stock SDK on a machine whose clock is wrong (`Date` moved in the driver process, the SDK
 * unmodified): the server reads how far the clock is off from the envelope's `sent_at` and,
 * from 55 minutes on (Relay's `MINIMUM_CLOCK_DRIFT`), dates the event when it happened with a
 * `clock_drift` note; a clock off by less keeps its time.
 */
import { describe, inject, it } from 'vitest'
import { Api } from '../harness/api.ts'
import { loadDriver } from '../harness/drivers.ts'
import { runProgram } from '../harness/health-crons.ts'
import { waitFor } from '../harness/wait.ts'

const api = new Api(inject('serverUrl'), inject('adminToken'))
const node = loadDriver('node')
const PROGRAM = 'conformance/drivers/node/skewed-clock.mjs'
const HOUR = 3_600_000

interface Stored {
  timestamp: number
  breadcrumbs?: { values: { timestamp?: number; message?: string }[] }
  errors?: { type: string; name?: string; sdk_time?: string; server_time?: string }[]
}

/** Runs the driver with the clock moved by `offset` ms; the stored event and the run's times. */
async function eventFromClock(name: string, offset: number) {
  const project = await api.createProject(name)
  const before = Date.now()
  const report = await runProgram({
    driver: node,
    program: PROGRAM,
    args: ['message', '--offset-ms', String(offset)],
    dsn: project.dsn,
  })
  const after = Date.now()
  const [id] = report['event_ids'] as string[]
  if (id === undefined) throw new Error('the driver reported no event id')
  const event = await waitFor(() => api.event(project.id, id), {
    timeout: 10_000,
    message: `event ${id}`,
  })
  return { event: event as unknown as Stored, before, after }
}

describe.concurrent('a wrong clock: @sentry/node', () => {
  if (node.missing !== undefined) {
    it.skip(`node driver unavailable: ${node.missing}`, () => {})
    return
  }

  it('2 h behind: dated when it happened, its breadcrumb alike, noted clock_drift', async ({
    expect,
  }) => {
    const { event, before, after } = await eventFromClock('clock-behind-node', -2 * HOUR)
    expect(event.timestamp * 1000).toBeGreaterThanOrEqual(before - 1000)
    expect(event.timestamp * 1000).toBeLessThanOrEqual(after + 1000)
    const crumb = event.breadcrumbs?.values.find((b) => b.message === 'before the message')
    expect(crumb?.timestamp).toBeGreaterThanOrEqual(before / 1000 - 1)
    expect(crumb?.timestamp).toBeLessThanOrEqual(event.timestamp)
    const note = event.errors?.find((n) => n.type === 'clock_drift')
    expect(note?.name).toBe('timestamp')
    // The SDK's own (wrong) time it sent the envelope at, and the server's.
    const sdk = Date.parse(note?.sdk_time ?? '')
    expect(sdk).toBeGreaterThanOrEqual(before - 2 * HOUR - 1000)
    expect(sdk).toBeLessThanOrEqual(after - 2 * HOUR + 1000)
    expect(Date.parse(note?.server_time ?? '') - sdk).toBeGreaterThan(2 * HOUR - 60_000)
  })

  it('10 min behind: the time as the SDK wrote it, no note', async ({ expect }) => {
    const { event, before, after } = await eventFromClock('clock-close-node', -10 * 60_000)
    expect(event.timestamp * 1000).toBeGreaterThanOrEqual(before - 10 * 60_000 - 1000)
    expect(event.timestamp * 1000).toBeLessThanOrEqual(after - 10 * 60_000 + 1000)
    expect(event.errors ?? []).toEqual([])
  })
})
