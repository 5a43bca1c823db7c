import { describe, expect, it } from 'vitest'
import { logRecord, logsExport } from '../../test/support/otlp-wire.ts'
import { IngestContext } from '../ingest/context.ts'
import { decodeLogsRequest, type OtlpLogsRequest } from './decode.ts'
import { digestLogs, recordEventId, requestDigest } from './digest-logs.ts'
import { type RecordInput, recordToEvent } from './to-event.ts'

const TRACE = '5b8efff798038103d269b633813fc60c'
const RECEIVED = 1_767_225_700_000

function inputOf(exportJson: unknown): RecordInput {
  const request = decodeLogsRequest(Buffer.from(JSON.stringify(exportJson)), 'json')
  const resource = request.resources[0]
  const scope = resource?.scopes[0]
  const record = scope?.records[0]
  if (resource === undefined || scope === undefined || record === undefined)
    throw new Error('empty')
  return { resource: resource.resource, scope: scope.scope, record }
}

const eventOf = (exportJson: unknown) =>
  recordToEvent(inputOf(exportJson), { eventId: 'a'.repeat(32), received: RECEIVED })

describe('recordToEvent', () => {
  it('builds an SDK-shaped event from an error record', () => {
    const event = eventOf(
      logsExport(
        [
          logRecord({
            severityNumber: 17,
            severityText: 'ERROR',
            body: 'payment for order 4711 failed',
            traceId: TRACE,
            spanId: 'eee19b7ec3c1b174',
            attributes: {
              'order.id': 4711,
              'exception.type': 'CardDeclined',
              'exception.message': 'card 4711 declined',
            },
          }),
        ],
        {
          'service.name': 'checkout',
          'service.version': '2.0.1',
          'deployment.environment.name': 'prod',
          'host.name': 'web-1',
          'telemetry.sdk.language': 'python',
          'telemetry.sdk.name': 'opentelemetry',
          'telemetry.sdk.version': '1.30.0',
          'process.runtime.name': 'CPython',
          'process.runtime.version': '3.12.1',
        },
      ),
    )
    expect(event).toEqual({
      event_id: 'a'.repeat(32),
      timestamp: 1767225600.123456,
      platform: 'python',
      level: 'error',
      logger: 'checkout.payments',
      message: 'payment for order 4711 failed',
      release: '2.0.1',
      environment: 'prod',
      server_name: 'web-1',
      sdk: { name: 'opentelemetry', version: '1.30.0' },
      tags: {
        'service.name': 'checkout',
        'service.version': '2.0.1',
        'deployment.environment.name': 'prod',
        'host.name': 'web-1',
        'telemetry.sdk.language': 'python',
        'telemetry.sdk.name': 'opentelemetry',
        'telemetry.sdk.version': '1.30.0',
        'process.runtime.name': 'CPython',
        'process.runtime.version': '3.12.1',
        'order.id': '4711',
      },
      exception: {
        values: [
          {
            type: 'CardDeclined',
            value: 'card 4711 declined',
            mechanism: { type: 'otlp', handled: true },
          },
        ],
      },
      contexts: {
        trace: { type: 'trace', trace_id: TRACE, span_id: 'eee19b7ec3c1b174' },
        runtime: { type: 'runtime', name: 'CPython', version: '3.12.1' },
        otel: expect.objectContaining({
          type: 'otel',
          severity_number: 17,
          severity_text: 'ERROR',
          scope: { name: 'checkout.payments', version: '1.0.0', attributes: {} },
        }),
      },
    })
    const otel = (event['contexts'] as { otel: { attributes: object; resource: object } }).otel
    expect({ ...otel.attributes }).toEqual({
      'order.id': 4711,
      'exception.type': 'CardDeclined',
      'exception.message': 'card 4711 declined',
    })
    expect(otel.resource).toMatchObject({ 'service.name': 'checkout' })
  })

  it('takes the exception from the stack trace text when type and message are missing', () => {
    const stack = 'RangeError: index 7 out of range\n    at pick (/srv/app/list.js:3:11)'
    const event = eventOf(
      logsExport([
        logRecord({ severityNumber: 21, attributes: { 'exception.stacktrace': stack } }),
      ]),
    )
    expect(event).toMatchObject({
      level: 'fatal',
      platform: 'node',
      exception: {
        values: [
          {
            type: 'RangeError',
            value: 'index 7 out of range',
            stacktrace: { frames: [{ function: 'pick', filename: '/srv/app/list.js', lineno: 3 }] },
          },
        ],
      },
    })
  })

  it('keeps structured bodies as JSON text and falls back to the receive time', () => {
    const record = { ...logRecord({ severityText: 'ERROR' }), timeUnixNano: '0' }
    const event = eventOf(
      logsExport([
        {
          ...record,
          body: { kvlistValue: { values: [{ key: 'op', value: { stringValue: 'sync' } }] } },
        },
      ]),
    )
    expect(event['message']).toBe('{"op":"sync"}')
    expect(event['timestamp']).toBe(RECEIVED / 1000)
    expect(event['platform']).toBe('other')
    expect(event['exception']).toBeUndefined()
    expect(event['contexts']).not.toHaveProperty('trace')
  })

  it('uses the observed time when the event time is unknown', () => {
    const record = {
      ...logRecord({ severityText: 'ERROR' }),
      timeUnixNano: '0',
      observedTimeUnixNano: '1767225601000000000',
    }
    expect(eventOf(logsExport([record]))['timestamp']).toBe(1767225601)
  })
})

function request(records: Record<string, unknown>[]): OtlpLogsRequest {
  return decodeLogsRequest(Buffer.from(JSON.stringify(logsExport(records))), 'json')
}

function context(): IngestContext {
  return new IngestContext(
    {
      project: { id: 7, slug: 'p', name: 'p', createdAt: 0, teamId: 1 },
      key: {
        id: 3,
        projectId: 7,
        publicKey: 'f'.repeat(32),
        label: 'Default',
        component: null,
        createdAt: 0,
        revokedAt: null,
      },
    },
    RECEIVED,
    {},
  )
}

describe('digestLogs', () => {
  const records = [
    logRecord({ severityNumber: 9, body: 'hello' }),
    logRecord({ severityNumber: 17, body: 'order 17 failed' }),
    logRecord({ severityText: 'FATAL', body: 'crash' }),
    logRecord({ severityNumber: 13, body: 'careful' }),
  ]

  it('turns error records into event rows and counts the rest', () => {
    const digest = digestLogs(request(records), context(), {
      maxEvent: 1_000_000,
      requestDigest: 'r',
    })
    expect(digest.dropped).toBe(2)
    expect(digest.tooLarge).toBe(0)
    expect(digest.events.map((e) => [e.level, e.title, e.projectId, e.keyId])).toEqual([
      ['error', 'order 17 failed', 7, 3],
      ['fatal', 'crash', 7, 3],
    ])
  })

  it('gives records ids that are stable for the same bytes and differ by position', () => {
    const body = Buffer.from(JSON.stringify(logsExport(records)))
    const run = () =>
      digestLogs(request(records), context(), {
        maxEvent: 1_000_000,
        requestDigest: requestDigest(body),
      }).events.map((e) => e.eventId)
    const first = run()
    expect(run()).toEqual(first)
    expect(new Set(first).size).toBe(2)
    for (const id of first) expect(id).toMatch(/^[0-9a-f]{32}$/)
    const other = digestLogs(request(records), context(), {
      maxEvent: 1_000_000,
      requestDigest: requestDigest(Buffer.from('another export')),
    }).events.map((e) => e.eventId)
    expect(other).not.toContain(first[0])
  })

  it('identifies a record by log.record.uid when it has one', () => {
    const [withUid] =
      request([logRecord({ severityNumber: 17, attributes: { 'log.record.uid': '01JGXYZ' } })])
        .resources[0]?.scopes[0]?.records ?? []
    if (withUid === undefined) throw new Error('no record')
    expect(recordEventId(withUid, 'a', 0)).toBe(recordEventId(withUid, 'b', 5))
  })

  it('refuses error records whose event exceeds the size limit', () => {
    const digest = digestLogs(
      request([
        logRecord({ severityNumber: 17, body: 'x'.repeat(5000) }),
        logRecord({ severityNumber: 17, body: 'small' }),
      ]),
      context(),
      { maxEvent: 4000, requestDigest: 'r' },
    )
    expect(digest.tooLarge).toBe(1)
    expect(digest.events.map((e) => e.title)).toEqual(['small'])
  })
})
