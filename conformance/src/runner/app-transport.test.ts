/**
 * What a cell's evidence says about a web app's SDK requests when its flush does not complete:
 * the real Go app (sentry-go with sentrygin, drivers/go-web) reports to a real receiver behind
 * the recording proxy. The receiver answers every envelope, or holds the second one unanswered
 * as a stalled server would; the evidence must then show the first request answered, the second
 * written and still waiting (in the app's transport and in the proxy), and the flush that gave
 * up — and nothing of the kind when every envelope is answered.
 */
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { DriverFailure, type DriverOutput, loadDriver } from '../harness/drivers.ts'
import { type RecordingProxy, startRecordingProxy } from '../harness/recording-proxy.ts'
import { CellContext, RunState } from './context.ts'
import type { Row } from './matrix.ts'
import { requestEvidence } from './run.ts'

const driver = loadDriver('go-gin')
const PROJECT = 7
const LABEL = "the app's flush and its SDK's HTTP requests, as the app's transport saw them"

const row: Row = {
  id: 'go-gin',
  label: 'Gin + sentrygin (sentry-go)',
  family: 'sentry-go',
  framework: 'Gin',
  driver: 'go-gin',
  cells: { 'request-errors': 'expected' },
}

/** A receiver of envelopes that answers the first `answered` of them and holds the rest. */
async function startReceiver(answered: number) {
  const held: ServerResponse[] = []
  let envelopes = 0
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      envelopes++
      if (envelopes > answered) {
        held.push(res)
        return
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"stored"}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    envelopes: () => envelopes,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

type Receiver = Awaited<ReturnType<typeof startReceiver>>
let receiver: Receiver | undefined
let proxy: RecordingProxy | undefined
afterEach(async () => {
  await proxy?.close()
  await receiver?.close()
})

/** A cell context whose target is the receiver behind a recording proxy; and the app's DSN. */
async function cellAgainst(answered: number) {
  receiver = await startReceiver(answered)
  proxy = await startRecordingProxy(receiver.url)
  const target = { url: receiver.url, token: 'unused', proxy, readBackMs: 1_000 }
  const ctx = new CellContext(target, row, driver, new RunState())
  ctx.track({ id: PROJECT })
  const dsn = proxy.dsnFor(`http://public@127.0.0.1:1/${PROJECT}`)
  return { ctx, dsn, proxy, receiver }
}

const noted = (ctx: CellContext) => ctx.evidence.readBack.filter((r) => r.label === LABEL)

describe('a web app whose SDK request gets no answer', () => {
  if (driver.missing !== undefined) {
    it.skip(`go-gin driver unavailable: ${driver.missing}`, () => {})
    return
  }

  it('every envelope answered: the flush completes, both requests are in the evidence with 200', async () => {
    const { ctx, dsn, proxy, receiver } = await cellAgainst(Number.POSITIVE_INFINITY)
    const report = await ctx.runEvents('request-errors', dsn)
    expect(report.app?.flushed).toBe(true)
    expect(report.app?.flush_ms).toEqual(expect.any(Number))
    const sdkRequests = report.app?.sdk_requests ?? []
    expect(sdkRequests.map((r) => [r.method, r.path, r.status, r.pending])).toEqual([
      ['POST', `/api/${PROJECT}/envelope/`, 200, undefined],
      ['POST', `/api/${PROJECT}/envelope/`, 200, undefined],
    ])
    // The first request of the process cannot have a kept-alive connection.
    expect(sdkRequests[0]?.['reused']).toBe(false)
    expect(noted(ctx).map((r) => r.value)).toEqual([report.app])
    expect(receiver.envelopes()).toBe(2)
    const evidence = requestEvidence(proxy, ctx.evidence.projects, Date.now())
    expect(evidence.map((r) => [r.status, r.pending])).toEqual([
      [200, undefined],
      [200, undefined],
    ])
    expect(evidence.map((r) => [r.ms, r.serverMs])).toEqual([
      [expect.any(Number), expect.any(Number)],
      [expect.any(Number), expect.any(Number)],
    ])
  })

  it('the second envelope held: the evidence shows it written and waiting, and the flush that gave up', async () => {
    const { ctx, dsn, proxy, receiver } = await cellAgainst(1)
    const failure = await ctx.runEvents('request-errors', dsn).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(failure).toBeInstanceOf(DriverFailure)
    const message = failure instanceof Error ? failure.message : ''
    // The first line (the report's short reason) says what the SDK's requests did.
    expect(message.split('\n')[0]).toMatch(
      /^the app's SDK flush did not complete after [\d.]+ ms; its 2 HTTP request\(s\): 200 after [\d.]+ ms; no answer after [\d.]+ ms \(written\)$/,
    )
    // The driver's output, which becomes the cell's error, says it in words.
    expect(message).toContain('flush: INCOMPLETE after')
    expect(message).toMatch(
      /sdk request: POST \/api\/7\/envelope\/ at \+[\d.]+ ms, connection after [\d.]+ ms \(new\), written after [\d.]+ ms, 200 after/,
    )
    expect(message).toMatch(
      /sdk request: POST \/api\/7\/envelope\/ at \+[\d.]+ ms, connection after .*, written after [\d.]+ ms, no answer after [\d.]+ ms, still waiting as the app exits/,
    )
    const [note] = noted(ctx)
    const app = note?.value as DriverOutput['app']
    expect(app?.flushed).toBe(false)
    // sentry-go's flush gives up after the app's timeout (5 s) with the request still out.
    expect(app?.flush_ms).toBeGreaterThanOrEqual(5_000)
    const [first, second] = app?.sdk_requests ?? []
    expect([first?.status, first?.pending]).toEqual([200, undefined])
    expect([second?.status, second?.pending]).toEqual([undefined, true])
    expect(second?.['wrote_ms']).toEqual(expect.any(Number))
    expect(app?.sdk_requests).toHaveLength(2)
    expect(receiver.envelopes()).toBe(2)
    // The proxy still waits for the receiver's answer to the second: pending in the evidence.
    const evidence = requestEvidence(proxy, ctx.evidence.projects, Date.now())
    expect(evidence.map((r) => [r.path, r.status, r.pending])).toEqual([
      [`/api/${PROJECT}/envelope/`, 200, undefined],
      [`/api/${PROJECT}/envelope/`, 0, true],
    ])
    expect(evidence[1]?.answer).toMatch(
      /^no answer from the server \d+ ms after the proxy forwarded/,
    )
    expect(evidence[1]?.serverMs).toEqual(expect.any(Number))
  })
})
