import { readFile } from 'node:fs/promises'
import { gzipSync } from 'node:zlib'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DEFAULT_LIMITS } from '../src/config.ts'
import type { LiveEvents } from '../src/live/bus.ts'
import {
  ADMIN,
  createProject,
  eid,
  eventEnvelope,
  issuesOf,
  sentryAuth,
  type TestProject,
  testApp,
} from './support/helpers.ts'
import {
  decodeResponse,
  decodeStatus,
  logRecord,
  logsExport,
  toProtobuf,
} from './support/otlp-wire.ts'
import { setQuota } from './support/outcome-helpers.ts'

const TRACE = '5b8efff798038103d269b633813fc60c'
const SPAN = 'eee19b7ec3c1b174'
const JSON_TYPE = 'application/json'
const PROTO_TYPE = 'application/x-protobuf'

let app: FastifyInstance
let project: TestProject

beforeEach(async () => {
  app = await testApp()
  project = await createProject(app, 'otlp')
})
afterEach(async () => {
  await app.close()
})

interface PostOptions {
  contentType?: string | undefined
  gzip?: boolean
  auth?: 'header' | 'query' | 'none'
  key?: string
  projectId?: number
  path?: string
  headers?: Record<string, string>
}

/** Posts an export (an OTLP/JSON object, encoded per content type, or raw bytes). */
function post(body: unknown, opts: PostOptions = {}) {
  const contentType = 'contentType' in opts ? opts.contentType : JSON_TYPE
  let payload: Buffer
  if (Buffer.isBuffer(body)) payload = body
  else if (contentType === PROTO_TYPE) payload = toProtobuf(body)
  else payload = Buffer.from(JSON.stringify(body))
  const headers: Record<string, string> = { ...opts.headers }
  if (contentType !== undefined) headers['content-type'] = contentType
  if (opts.gzip === true) {
    payload = gzipSync(payload)
    headers['content-encoding'] = 'gzip'
  }
  const key = opts.key ?? project.key
  const auth = opts.auth ?? 'header'
  if (auth === 'header') headers['x-sentry-auth'] = `sentry sentry_key=${key}`
  const query = auth === 'query' ? `?sentry_key=${key}` : ''
  const path = opts.path ?? 'otlp/v1/logs'
  const inject: InjectOptions = {
    method: 'POST',
    url: `/api/${opts.projectId ?? project.id}/${path}${query}`,
    headers,
    payload,
  }
  return app.inject(inject)
}

async function outcomes(projectId = project.id) {
  const res = await app.inject({
    method: 'GET',
    url: `/api/0/projects/${projectId}/outcomes/`,
    headers: ADMIN,
  })
  const body = res.json<{
    totals: { outcome: string; reason: string; category: string; quantity: number }[]
  }>()
  return body.totals.map(({ outcome, reason, category, quantity }) => ({
    outcome,
    reason,
    category,
    quantity,
  }))
}

async function eventsOf(issueId: number) {
  const res = await app.inject({
    method: 'GET',
    url: `/api/0/issues/${issueId}/events/`,
    headers: ADMIN,
  })
  const refs = res.json<{ event_id: string }[]>()
  return Promise.all(
    refs.map(async (ref) => {
      const one = await app.inject({
        method: 'GET',
        url: `/api/0/projects/${project.id}/events/${ref.event_id}/`,
        headers: ADMIN,
      })
      return one.json<Record<string, unknown>>()
    }),
  )
}

/** INFO, WARN, one ERROR with exception attributes and a trace, one FATAL. */
const mixed = () =>
  logsExport([
    logRecord({ severityNumber: 9, severityText: 'INFO', body: 'user 1001 signed in' }),
    logRecord({ severityNumber: 13, severityText: 'WARN', body: 'disk 87% full' }),
    logRecord({
      severityNumber: 17,
      severityText: 'ERROR',
      body: 'payment for order 4711 failed',
      traceId: TRACE,
      spanId: SPAN,
      attributes: {
        'order.id': 4711,
        'exception.type': 'CardDeclined',
        'exception.message': 'card 4711 declined',
        'exception.stacktrace':
          'CardDeclined: card 4711 declined\n    at charge (/srv/app/pay.js:12:9)\n    at checkout (/srv/app/cart.js:40:5)',
      },
    }),
    logRecord({ severityNumber: 21, severityText: 'FATAL', body: 'database unreachable' }),
  ])

describe('OTLP logs: both encodings', () => {
  for (const [name, contentType] of [
    ['JSON', JSON_TYPE],
    ['protobuf', PROTO_TYPE],
  ] as const) {
    for (const gzip of [false, true]) {
      it(`${name}${gzip ? ', gzip' : ''}: error records become issues, the rest are counted`, async () => {
        const res = await post(mixed(), { contentType, gzip })
        expect(res.statusCode, res.body).toBe(200)
        expect(res.headers['content-type']).toBe(contentType)
        if (contentType === JSON_TYPE) expect(res.json()).toEqual({})
        else expect(res.rawPayload).toHaveLength(0)

        const issues = await issuesOf(app, project.id)
        expect(issues.map((i) => [i.title, i.level, i.count]).sort()).toEqual([
          ['CardDeclined: card 4711 declined', 'error', 1],
          ['database unreachable', 'fatal', 1],
        ])
        const error = issues.find((i) => i.level === 'error')
        expect(error?.culprit).toBe('charge(/srv/app/pay.js)')
        const [event] = await eventsOf(error?.id ?? 0)
        expect(event).toMatchObject({
          level: 'error',
          logger: 'checkout.payments',
          message: 'payment for order 4711 failed',
          release: '2.0.1',
          timestamp: 1767225600.123456,
          contexts: {
            trace: { trace_id: TRACE, span_id: SPAN },
            otel: { resource: { 'service.name': 'checkout' }, attributes: { 'order.id': 4711 } },
          },
          exception: {
            values: [
              {
                type: 'CardDeclined',
                value: 'card 4711 declined',
                stacktrace: { frames: [{ function: 'checkout' }, { function: 'charge' }] },
              },
            ],
          },
        })
        expect(event?.['tags']).toEqual(
          expect.arrayContaining([
            ['service.name', 'checkout'],
            ['order.id', '4711'],
          ]),
        )
        expect(JSON.stringify(event?.['tags'])).not.toContain('exception.')

        expect(await outcomes()).toEqual(
          expect.arrayContaining([
            { outcome: 'accepted', reason: '', category: 'error', quantity: 2 },
            { outcome: 'unsupported', reason: 'log', category: 'log_item', quantity: 2 },
          ]),
        )
      })
    }
  }

  it('replays the captured exports of the stock JS exporters (JSON and protobuf)', async () => {
    const fixtures = new URL('../../fixtures/otlp/', import.meta.url)
    const cases: [string, string][] = [
      ['otel-js-levels-json.otlp.json', JSON_TYPE],
      ['otel-js-levels-proto.otlp.pb', PROTO_TYPE],
    ]
    for (const [file, contentType] of cases) {
      const p = await createProject(app, file)
      const body = await readFile(new URL(file, fixtures))
      const res = await post(body, { contentType, projectId: p.id, key: p.key })
      expect(res.statusCode, res.body).toBe(200)
      const issues = await issuesOf(app, p.id)
      expect(issues.map((i) => [i.level, i.count]).sort()).toEqual([
        ['error', 2],
        ['fatal', 2],
      ])
    }
  })

  it('accepts Relay’s integration path and a trailing slash', async () => {
    const records = logsExport([logRecord({ severityNumber: 17, body: 'one' })])
    expect((await post(records, { path: 'integration/otlp/v1/logs' })).statusCode).toBe(200)
    expect((await post(records, { path: 'otlp/v1/logs/' })).statusCode).toBe(200)
    expect((await post(records, { path: 'integration/otlp/v1/logs/' })).statusCode).toBe(200)
  })

  it('announces stored events on the bus, like envelopes (alerts, triage, live UI)', async () => {
    const seen: LiveEvents['event.stored'][0][] = []
    app.services.bus.on('event.stored', (e) => seen.push(e))
    await post(mixed())
    expect(seen).toHaveLength(2)
    expect(seen.every((e) => e.projectId === project.id && e.issueCreated)).toBe(true)
    // A resend of the same export is deduplicated: nothing new is announced.
    await post(mixed())
    expect(seen).toHaveLength(2)
  })

  it('treats ERROR/FATAL severity text as errors when the number is unset', async () => {
    const res = await post(
      logsExport([
        logRecord({ severityText: 'ERROR', body: 'text error' }),
        logRecord({ severityText: 'fatal', body: 'text fatal' }),
        logRecord({ severityText: 'INFO', body: 'text info' }),
        logRecord({ body: 'no severity at all' }),
      ]),
    )
    expect(res.statusCode).toBe(200)
    const issues = await issuesOf(app, project.id)
    expect(issues.map((i) => [i.title, i.level]).sort()).toEqual([
      ['text error', 'error'],
      ['text fatal', 'fatal'],
    ])
    expect(await outcomes()).toContainEqual({
      outcome: 'unsupported',
      reason: 'log',
      category: 'log_item',
      quantity: 2,
    })
  })

  it('answers an export without error records with success and stores nothing', async () => {
    const res = await post(logsExport([logRecord({ severityNumber: 9, body: 'hi' })]), {
      contentType: PROTO_TYPE,
    })
    expect(res.statusCode).toBe(200)
    expect(await issuesOf(app, project.id)).toEqual([])
    const empty = await post(Buffer.alloc(0), { contentType: PROTO_TYPE })
    expect(empty.statusCode).toBe(200)
  })
})

describe('OTLP logs: grouping', () => {
  it('puts records of one error that differ only in numbers or ids into one issue', async () => {
    const res = await post(
      logsExport([
        logRecord({
          severityNumber: 17,
          body: 'order 4711 failed for user 5f0c1f3e-2b8a-4c1d-9e77-0a1b2c3d4e5f after 120ms',
        }),
        logRecord({
          severityNumber: 17,
          body: 'order 98 failed for user 0e9d8c7b-6a5f-4e3d-8c2b-1a0f9e8d7c6b after 3ms',
        }),
        logRecord({
          severityNumber: 17,
          attributes: { 'exception.type': 'Timeout', 'exception.message': 'gave up after 3 tries' },
        }),
        logRecord({
          severityNumber: 17,
          attributes: {
            'exception.type': 'Timeout',
            'exception.message': 'gave up after 12 tries',
          },
        }),
        logRecord({ severityNumber: 17, body: 'cache miss storm' }),
      ]),
    )
    expect(res.statusCode).toBe(200)
    const issues = await issuesOf(app, project.id)
    expect(issues.map((i) => i.count).sort()).toEqual([1, 2, 2])
    expect(issues.find((i) => i.count === 1)?.title).toBe('cache miss storm')
    expect(issues.find((i) => i.title.startsWith('Timeout'))?.count).toBe(2)
  })

  it('groups across exports, so the same error sent twice is one issue with two events', async () => {
    const one = (order: number) =>
      logsExport([logRecord({ severityNumber: 17, body: `payment for order ${order} failed` })])
    await post(one(1))
    await post(one(2), { contentType: PROTO_TYPE })
    const issues = await issuesOf(app, project.id)
    expect(issues).toHaveLength(1)
    expect(issues[0]?.count).toBe(2)
  })
})

describe('OTLP logs: partial success', () => {
  it('reports refused records in partial_success and stores the rest (JSON)', async () => {
    await app.close()
    app = await testApp({ limits: { ...DEFAULT_LIMITS, maxEvent: 4000 } })
    project = await createProject(app, 'otlp')
    const res = await post(
      logsExport([
        logRecord({ severityNumber: 17, body: 'x'.repeat(5000) }),
        logRecord({ severityNumber: 17, body: 'fits' }),
        logRecord({ severityNumber: 9, body: 'info' }),
      ]),
    )
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      partialSuccess: {
        rejectedLogRecords: '1',
        errorMessage: '1 error record(s) exceed the event size limit of 4000 bytes',
      },
    })
    expect((await issuesOf(app, project.id)).map((i) => i.title)).toEqual(['fits'])
    expect(await outcomes()).toEqual(
      expect.arrayContaining([
        { outcome: 'rejected', reason: 'too_large', category: 'error', quantity: 1 },
        { outcome: 'accepted', reason: '', category: 'error', quantity: 1 },
        { outcome: 'unsupported', reason: 'log', category: 'log_item', quantity: 1 },
      ]),
    )
  })

  it('reports refused records in partial_success (protobuf)', async () => {
    await app.close()
    app = await testApp({ limits: { ...DEFAULT_LIMITS, maxEvent: 4000 } })
    project = await createProject(app, 'otlp')
    const res = await post(
      logsExport([
        logRecord({ severityNumber: 17, body: 'x'.repeat(5000) }),
        logRecord({ severityNumber: 21, body: 'y'.repeat(5000) }),
      ]),
      { contentType: PROTO_TYPE },
    )
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe(PROTO_TYPE)
    expect(decodeResponse(res.rawPayload)).toEqual({
      partialSuccess: {
        rejectedLogRecords: '2',
        errorMessage: '2 error record(s) exceed the event size limit of 4000 bytes',
      },
    })
    expect(await issuesOf(app, project.id)).toEqual([])
  })
})

describe('OTLP logs: bad requests', () => {
  it('answers 400 for a protobuf body that does not decode, with a google.rpc.Status', async () => {
    const res = await post(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]), {
      contentType: PROTO_TYPE,
    })
    expect(res.statusCode).toBe(400)
    expect(res.headers['content-type']).toBe(PROTO_TYPE)
    expect(decodeStatus(res.rawPayload)).toMatchObject({
      code: 3,
      message: 'invalid OTLP protobuf body: not an ExportLogsServiceRequest',
    })
    expect(await issuesOf(app, project.id)).toEqual([])
  })

  it('answers 400 for JSON that does not decode, with detail and the Status fields', async () => {
    for (const body of [Buffer.from('{"resourceLogs": ['), Buffer.from('{"resourceLogs": 5}')]) {
      const res = await post(body)
      expect(res.statusCode).toBe(400)
      expect(res.json()).toMatchObject({
        code: 3,
        detail: expect.stringMatching(/^invalid OTLP JSON/),
      })
    }
    const gzipped = await post(Buffer.from('not gzip'), {
      headers: { 'content-encoding': 'gzip' },
    })
    expect(gzipped.statusCode).toBe(400)
    expect(await issuesOf(app, project.id)).toEqual([])
    expect(await outcomes()).toContainEqual(
      expect.objectContaining({ outcome: 'rejected', reason: 'invalid_json' }),
    )
  })

  it('answers 415 for other content types', async () => {
    for (const contentType of ['text/plain', 'application/x-sentry-envelope', undefined]) {
      const res = await post(mixed(), { contentType })
      expect(res.statusCode, String(contentType)).toBe(415)
      expect(res.json<{ detail: string }>().detail).toMatch(/application\/x-protobuf/)
    }
    expect(await issuesOf(app, project.id)).toEqual([])
  })

  it('answers 413 above the body cap', async () => {
    await app.close()
    app = await testApp({ limits: { ...DEFAULT_LIMITS, maxEnvelope: 10_000 } })
    project = await createProject(app, 'otlp')
    const big = logsExport([logRecord({ severityNumber: 17, body: 'z'.repeat(20_000) })])
    expect((await post(big, { gzip: true })).statusCode).toBe(413)
  })
})

describe('OTLP logs: credentials', () => {
  const one = () => logsExport([logRecord({ severityNumber: 17, body: 'auth check' })])

  it('accepts the key in the query string or in X-Sentry-Auth (any case of the scheme)', async () => {
    expect((await post(one(), { auth: 'query' })).statusCode).toBe(200)
    expect((await post(one(), { auth: 'header' })).statusCode).toBe(200)
    const sdkStyle = await post(one(), {
      auth: 'none',
      headers: { 'X-Sentry-Auth': sentryAuth(project.key) },
    })
    expect(sdkStyle.statusCode).toBe(200)
  })

  it('answers 401 without a key and for a malformed one', async () => {
    const none = await post(one(), { auth: 'none' })
    expect(none.statusCode).toBe(401)
    expect(none.json()).toMatchObject({
      detail: expect.stringMatching(/missing authorization/),
      code: 16,
    })
    expect((await post(one(), { key: 'not-a-key' })).statusCode).toBe(401)
  })

  it('answers 403 for an unknown key or another project’s key, in protobuf as a Status', async () => {
    expect((await post(one(), { key: 'a'.repeat(32) })).statusCode).toBe(403)
    const other = await createProject(app, 'other')
    const foreign = await post(one(), { key: other.key, contentType: PROTO_TYPE })
    expect(foreign.statusCode).toBe(403)
    expect(decodeStatus(foreign.rawPayload).code).toBe(7)
    expect(await issuesOf(app, project.id)).toEqual([])
  })

  it('takes the query parameter over the header', async () => {
    const other = await createProject(app, 'other')
    const res = await app.inject({
      method: 'POST',
      url: `/api/${project.id}/otlp/v1/logs?sentry_key=${project.key}`,
      headers: { 'content-type': JSON_TYPE, 'x-sentry-auth': `sentry sentry_key=${other.key}` },
      payload: JSON.stringify(one()),
    })
    expect(res.statusCode).toBe(200)
  })

  it('answers the CORS preflight of browser exporters', async () => {
    const res = await app.inject({
      method: 'OPTIONS',
      url: `/api/${project.id}/otlp/v1/logs`,
      headers: {
        origin: 'https://shop.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-sentry-auth',
      },
    })
    expect(res.statusCode).toBe(204)
    expect(res.headers['access-control-allow-origin']).toBe('https://shop.example')
  })
})

describe('OTLP logs: quota', () => {
  it('charges one per error record, none for the others, and answers 429 over quota', async () => {
    await setQuota(app, project.id, { events: 1, window_seconds: 3600 })
    const info = logsExport([logRecord({ severityNumber: 9, body: 'free' })])
    expect((await post(info)).statusCode).toBe(200)

    const two = logsExport([
      logRecord({ severityNumber: 17, body: 'first error' }),
      logRecord({ severityNumber: 13, body: 'a warning' }),
      logRecord({ severityNumber: 17, body: 'second error' }),
    ])
    const res = await post(two, { contentType: PROTO_TYPE })
    expect(res.statusCode).toBe(429)
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0)
    expect(res.headers['x-sentry-rate-limits']).toMatch(/^\d+:error:project:quota_exceeded$/)
    expect(decodeStatus(res.rawPayload).code).toBe(8)
    // What fit is kept; the exporter's retry of the same bytes does not store it twice.
    const retry = await post(two, { contentType: PROTO_TYPE })
    expect(retry.statusCode).toBe(429)
    const issues = await issuesOf(app, project.id)
    expect(issues.map((i) => [i.title, i.count])).toEqual([['first error', 1]])
    const totals = await outcomes()
    expect(totals).toEqual(
      expect.arrayContaining([
        { outcome: 'accepted', reason: '', category: 'error', quantity: 1 },
        { outcome: 'over_quota', reason: 'quota_exceeded', category: 'error', quantity: 2 },
        // Only the first export's record: a 429 leaves the others to the retry.
        { outcome: 'unsupported', reason: 'log', category: 'log_item', quantity: 1 },
      ]),
    )
  })
})

describe('OTLP logs: the envelope scope is untouched', () => {
  it('still ingests envelopes with any content type', async () => {
    const res = await app.inject({
      method: 'POST',
      url: `/api/${project.id}/envelope/`,
      headers: { 'x-sentry-auth': sentryAuth(project.key), 'content-type': 'text/plain' },
      payload: eventEnvelope({ event_id: eid(1), message: 'still here', level: 'error' }),
    })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({ id: eid(1) })
  })
})
