import { describe, expect, it } from 'vitest'
import {
  decodeResponse,
  decodeStatus,
  logRecord,
  logsExport,
  toProtobuf,
} from '../../test/support/otlp-wire.ts'
import { ApiError } from '../errors.ts'
import {
  decodeLogsRequest,
  encodeLogsResponse,
  encodeStatus,
  grpcCodeOf,
  type OtlpLogsRequest,
  otlpEncoding,
} from './decode.ts'

const TRACE = '5b8efff798038103d269b633813fc60c'
const SPAN = 'eee19b7ec3c1b174'

const json = (v: unknown) => Buffer.from(JSON.stringify(v))
const firstRecord = (r: OtlpLogsRequest) => r.resources[0]?.scopes[0]?.records[0]

/** An export with every AnyValue kind, in OTLP/JSON. */
const rich = logsExport(
  [
    {
      ...logRecord({
        severityNumber: 17,
        severityText: 'ERROR',
        body: 'boom',
        traceId: TRACE,
        spanId: SPAN,
      }),
      attributes: [
        { key: 'int', value: { intValue: '42' } },
        { key: 'big', value: { intValue: '9007199254740993' } },
        { key: 'double', value: { doubleValue: 1.5 } },
        { key: 'bool', value: { boolValue: false } },
        { key: 'bytes', value: { bytesValue: 'AAE=' } },
        { key: 'list', value: { arrayValue: { values: [{ stringValue: 'a' }, { intValue: 1 }] } } },
        {
          key: 'map',
          value: { kvlistValue: { values: [{ key: 'inner', value: { stringValue: 'x' } }] } },
        },
        { key: 'empty', value: {} },
        { key: '__proto__', value: { stringValue: 'not a prototype' } },
      ],
    },
  ],
  { 'service.name': 'checkout' },
)

describe('decodeLogsRequest', () => {
  it('decodes OTLP/JSON: hex ids, int64 strings, every value kind', () => {
    const request = decodeLogsRequest(json(rich), 'json')
    expect(request.resources[0]?.resource).toEqual({ 'service.name': 'checkout' })
    expect(request.resources[0]?.scopes[0]?.scope).toEqual({
      name: 'checkout.payments',
      version: '1.0.0',
      attributes: {},
    })
    const record = firstRecord(request)
    expect(record).toMatchObject({
      timeUnixNano: 1767225600123456789n,
      severityNumber: 17,
      severityText: 'ERROR',
      body: 'boom',
      traceId: TRACE,
      spanId: SPAN,
    })
    expect({ ...record?.attributes }).toEqual({
      int: 42,
      big: '9007199254740993',
      double: 1.5,
      bool: false,
      bytes: 'AAE=',
      list: ['a', 1],
      map: { inner: 'x' },
      empty: null,
      ['__proto__']: 'not a prototype',
    })
    expect(Object.getPrototypeOf(record?.attributes)).toBe(null)
  })

  it('decodes the same export from protobuf to the same model', () => {
    expect(decodeLogsRequest(toProtobuf(rich), 'protobuf')).toEqual(
      decodeLogsRequest(json(rich), 'json'),
    )
  })

  it('accepts snake_case field names and ignores unknown fields (OTLP/JSON rules)', () => {
    const snake = {
      resource_logs: [
        {
          scope_logs: [
            {
              log_records: [
                { severity_number: 21, severity_text: 'FATAL', trace_id: TRACE, future: 1 },
              ],
            },
          ],
          schemaUrl: 'https://opentelemetry.io/schemas/1.30.0',
        },
      ],
      somethingNew: { a: 1 },
    }
    const record = firstRecord(decodeLogsRequest(json(snake), 'json'))
    expect(record).toMatchObject({ severityNumber: 21, severityText: 'FATAL', traceId: TRACE })
  })

  it('treats malformed or all-zero ids as missing instead of failing the export', () => {
    const request = decodeLogsRequest(
      json(
        logsExport([
          logRecord({ traceId: 'not-hex!', spanId: SPAN }),
          logRecord({ traceId: '00000000000000000000000000000000' }),
          logRecord({ traceId: 'abcd' }),
        ]),
      ),
      'json',
    )
    const records = request.resources[0]?.scopes[0]?.records ?? []
    expect(records.map((r) => r.traceId)).toEqual([undefined, undefined, undefined])
    expect(records[0]?.spanId).toBe(SPAN)
  })

  it('decodes an empty protobuf body and {} as empty requests', () => {
    expect(decodeLogsRequest(Buffer.alloc(0), 'protobuf')).toEqual({ resources: [] })
    expect(decodeLogsRequest(json({}), 'json')).toEqual({ resources: [] })
  })

  it('rejects bodies that do not decode with a 400', () => {
    const bad: [Buffer, 'json' | 'protobuf'][] = [
      [Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]), 'protobuf'],
      [Buffer.from('{"resourceLogs": [}'), 'json'],
      [json({ resourceLogs: 5 }), 'json'],
      [
        json({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ severityNumber: true }] }] }] }),
        'json',
      ],
      [
        json({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ timeUnixNano: 'soon' }] }] }] }),
        'json',
      ],
      [json([1, 2]), 'json'],
      [Buffer.alloc(0), 'json'],
    ]
    for (const [body, encoding] of bad) {
      let error: unknown
      try {
        decodeLogsRequest(body, encoding)
      } catch (err) {
        error = err
      }
      expect(error, body.toString('latin1')).toBeInstanceOf(ApiError)
      expect((error as ApiError).status).toBe(400)
    }
  })

  it('refuses nesting beyond the protobuf recursion limit and cuts deep values', () => {
    let deep: Record<string, unknown> = { stringValue: 'bottom' }
    for (let i = 0; i < 150; i++) deep = { arrayValue: { values: [deep] } }
    const tooDeep = logsExport([{ ...logRecord({ severityNumber: 17 }), body: deep }])
    expect(() => decodeLogsRequest(json(tooDeep), 'json')).toThrow(ApiError)

    let nested: Record<string, unknown> = { stringValue: 'bottom' }
    for (let i = 0; i < 40; i++) nested = { arrayValue: { values: [nested] } }
    const body = firstRecord(
      decodeLogsRequest(json(logsExport([{ ...logRecord({}), body: nested }])), 'json'),
    )?.body
    expect(JSON.stringify(body)).toContain('[too deep]')
  })
})

describe('responses', () => {
  it('answers full success with an empty message in either encoding', () => {
    expect(encodeLogsResponse('json', 0, '').toString()).toBe('{}')
    expect(encodeLogsResponse('protobuf', 0, '')).toHaveLength(0)
  })

  it('carries partial_success with the rejected count', () => {
    expect(JSON.parse(encodeLogsResponse('json', 2, 'too big').toString())).toEqual({
      partialSuccess: { rejectedLogRecords: '2', errorMessage: 'too big' },
    })
    expect(decodeResponse(encodeLogsResponse('protobuf', 2, 'too big'))).toEqual({
      partialSuccess: { rejectedLogRecords: '2', errorMessage: 'too big' },
    })
  })

  it('encodes google.rpc.Status for protobuf errors', () => {
    expect(decodeStatus(encodeStatus(3, 'bad'))).toEqual({ code: 3, message: 'bad' })
    expect([400, 401, 403, 413, 415, 429, 500].map(grpcCodeOf)).toEqual([3, 16, 7, 3, 3, 8, 13])
  })
})

describe('otlpEncoding', () => {
  it('knows the OTLP content types, with parameters, in any case', () => {
    expect(otlpEncoding('application/x-protobuf')).toBe('protobuf')
    expect(otlpEncoding('application/protobuf')).toBe('protobuf')
    expect(otlpEncoding('Application/JSON; charset=utf-8')).toBe('json')
    expect(otlpEncoding('text/plain')).toBe(undefined)
    expect(otlpEncoding('application/x-sentry-envelope')).toBe(undefined)
    expect(otlpEncoding(undefined)).toBe(undefined)
  })
})
