/**
 * OTLP/HTTP logs on the wire: the request in either encoding the OpenTelemetry exporters use
 * (binary protobuf, or the OTLP JSON mapping), decoded with protobufjs against the vendored
 * official schema (`proto/`), and the answers (ExportLogsServiceResponse, google.rpc.Status)
 * encoded back in the request's encoding.
 */
import protobuf from 'protobufjs'
import protojson from 'protobufjs/ext/protojson.js'
import { ApiError } from '../errors.ts'
import { LOGS_SCHEMA } from './logs-schema.ts'

/** The two OTLP/HTTP body encodings. */
export type OtlpEncoding = 'protobuf' | 'json'

/**
 * An attribute or body value as plain JSON: int64 beyond 2^53 as a decimal string, bytes as
 * base64, arrays as arrays, key-value lists as objects (without prototype).
 */
export type AnyJson = string | number | boolean | null | AnyJson[] | { [key: string]: AnyJson }

/** Attributes by key (the last of duplicated keys wins). Objects without prototype. */
export type Attributes = Record<string, AnyJson>

/** One log record, with only what the service reads. */
export interface OtlpLogRecord {
  /** Nanoseconds since the epoch; 0 = unknown. */
  timeUnixNano: bigint
  observedTimeUnixNano: bigint
  /** 0 = unspecified. */
  severityNumber: number
  severityText: string
  /** Undefined when the record has no body. */
  body: AnyJson | undefined
  attributes: Attributes
  /** 32 lowercase hex digits, or undefined when missing, malformed or all zero. */
  traceId: string | undefined
  /** 16 lowercase hex digits, or undefined. */
  spanId: string | undefined
  eventName: string
}

/** The instrumentation scope (the OpenTelemetry logger) records were emitted through. */
export interface OtlpScope {
  name: string
  version: string
  attributes: Attributes
}

/** Records of one scope. */
export interface OtlpScopeLogs {
  scope: OtlpScope
  records: OtlpLogRecord[]
}

/** Records of one resource (one service instance). */
export interface OtlpResourceLogs {
  resource: Attributes
  scopes: OtlpScopeLogs[]
}

/** A decoded ExportLogsServiceRequest. */
export interface OtlpLogsRequest {
  resources: OtlpResourceLogs[]
}

const PKG = 'opentelemetry.proto.collector.logs.v1'

/**
 * google.rpc.Status as in googleapis `google/rpc/status.proto`, without `details` (we send none):
 * the body OTLP/HTTP servers answer errors with.
 */
const STATUS_PROTO =
  'syntax = "proto3"; package google.rpc; message Status { int32 code = 1; string message = 2; }'

interface Schema {
  request: protobuf.Type
  response: protobuf.Type
  status: protobuf.Type
}

let loaded: Schema | undefined

/** The message types, built once from the vendored schema. */
function schema(): Schema {
  if (loaded !== undefined) return loaded
  // The schema is compiled into the module (logs-schema.ts): no `.proto` file is read.
  const root = protobuf.Root.fromJSON(LOGS_SCHEMA as protobuf.INamespace)
  protobuf.parse(STATUS_PROTO, root)
  root.resolveAll()
  loaded = {
    request: root.lookupType(`${PKG}.ExportLogsServiceRequest`),
    response: root.lookupType(`${PKG}.ExportLogsServiceResponse`),
    status: root.lookupType('google.rpc.Status'),
  }
  return loaded
}

/** The encoding a Content-Type names, or undefined for any other type (answered with 415). */
export function otlpEncoding(contentType: string | undefined): OtlpEncoding | undefined {
  const media = (contentType ?? '').split(';')[0]?.trim().toLowerCase()
  if (media === 'application/x-protobuf' || media === 'application/protobuf') return 'protobuf'
  if (media === 'application/json') return 'json'
  return undefined
}

/** The Content-Type of an answer in `encoding`. */
export function contentTypeOf(encoding: OtlpEncoding): string {
  return encoding === 'json' ? 'application/json' : 'application/x-protobuf'
}

// --- reading protobufjs' plain objects (untrusted shapes, read through guards) ---

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v)
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])
const text = (v: unknown): string => (typeof v === 'string' ? v : '')

/** A decimal int64 string to a number when exact, else kept as the string. */
function int64(v: string): number | string {
  const n = Number(v)
  return Number.isSafeInteger(n) ? n : v
}

/** Deeper values are cut (protobufjs itself refuses nesting beyond 100). */
const MAX_VALUE_DEPTH = 32

/** An AnyValue (as protobufjs' plain object) to plain JSON. */
export function anyValue(v: unknown, depth = 0): AnyJson {
  if (!isObj(v)) return null
  if (typeof v['stringValue'] === 'string') return v['stringValue']
  if (typeof v['boolValue'] === 'boolean') return v['boolValue']
  if (typeof v['intValue'] === 'string') return int64(v['intValue'])
  if (typeof v['intValue'] === 'number') return v['intValue']
  if (typeof v['doubleValue'] === 'number') {
    return Number.isFinite(v['doubleValue']) ? v['doubleValue'] : String(v['doubleValue'])
  }
  if (typeof v['bytesValue'] === 'string') return v['bytesValue']
  if (depth >= MAX_VALUE_DEPTH) return '[too deep]'
  if (isObj(v['arrayValue'])) {
    return list(v['arrayValue']['values']).map((x) => anyValue(x, depth + 1))
  }
  if (isObj(v['kvlistValue'])) return attributes(v['kvlistValue']['values'], depth + 1)
  return null
}

/** A repeated KeyValue to an object without prototype (so any key is a plain own key). */
export function attributes(v: unknown, depth = 0): Attributes {
  const out: Attributes = Object.create(null)
  for (const kv of list(v)) {
    if (!isObj(kv) || typeof kv['key'] !== 'string') continue
    out[kv['key']] = anyValue(kv['value'], depth)
  }
  return out
}

/** A base64 id to lowercase hex of the expected byte length; all-zero ids are invalid (W3C). */
function hexId(v: unknown, bytes: number): string | undefined {
  if (typeof v !== 'string' || v === '') return undefined
  const buf = Buffer.from(v, 'base64')
  if (buf.length !== bytes || buf.every((b) => b === 0)) return undefined
  return buf.toString('hex')
}

function nanos(v: unknown): bigint {
  if (typeof v !== 'string' && typeof v !== 'number') return 0n
  try {
    return BigInt(v)
  } catch {
    return 0n
  }
}

function logRecord(v: Obj): OtlpLogRecord {
  return {
    timeUnixNano: nanos(v['timeUnixNano']),
    observedTimeUnixNano: nanos(v['observedTimeUnixNano']),
    severityNumber: typeof v['severityNumber'] === 'number' ? v['severityNumber'] : 0,
    severityText: text(v['severityText']),
    body: v['body'] === undefined ? undefined : anyValue(v['body']),
    attributes: attributes(v['attributes']),
    traceId: hexId(v['traceId'], 16),
    spanId: hexId(v['spanId'], 8),
    eventName: text(v['eventName']),
  }
}

/** The typed request from protobufjs' plain-object form of ExportLogsServiceRequest. */
function fromPlain(plain: unknown): OtlpLogsRequest {
  const resources: OtlpResourceLogs[] = []
  for (const rl of list(isObj(plain) ? plain['resourceLogs'] : undefined)) {
    if (!isObj(rl)) continue
    const resource = attributes(isObj(rl['resource']) ? rl['resource']['attributes'] : undefined)
    const scopes: OtlpScopeLogs[] = []
    for (const sl of list(rl['scopeLogs'])) {
      if (!isObj(sl)) continue
      const s = isObj(sl['scope']) ? sl['scope'] : {}
      scopes.push({
        scope: {
          name: text(s['name']),
          version: text(s['version']),
          attributes: attributes(s['attributes']),
        },
        records: list(sl['logRecords']).filter(isObj).map(logRecord),
      })
    }
    resources.push({ resource, scopes })
  }
  return { resources }
}

const HEX = /^[0-9a-fA-F]*$/

/**
 * OTLP JSON writes trace and span ids as hex, where the proto3 JSON mapping has base64:
 * rewrites them in place (either field spelling) so the generic mapping can read the rest.
 * An id that is not hex is dropped, as Relay treats invalid ids as missing.
 */
function hexIdsToBase64(request: unknown): void {
  const children = (v: unknown, camel: string, snake: string): unknown[] =>
    isObj(v) ? list(v[camel] ?? v[snake]) : []
  for (const rl of children(request, 'resourceLogs', 'resource_logs')) {
    for (const sl of children(rl, 'scopeLogs', 'scope_logs')) {
      for (const record of children(sl, 'logRecords', 'log_records')) {
        if (!isObj(record)) continue
        for (const key of ['traceId', 'trace_id', 'spanId', 'span_id']) {
          const id = record[key]
          if (id === undefined) continue
          if (typeof id === 'string' && id.length % 2 === 0 && HEX.test(id)) {
            record[key] = Buffer.from(id, 'hex').toString('base64')
          } else {
            delete record[key]
          }
        }
      }
    }
  }
}

const PLAIN: protobuf.IConversionOptions = { longs: String, enums: Number, bytes: String }

/** First line of a decoder's complaint, for the 400 answer. */
function reason(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]?.slice(0, 300) ?? ''
}

/**
 * Decodes an ExportLogsServiceRequest. Unknown fields are ignored (OTLP requires it); a body
 * that does not decode is a 400. An empty protobuf body is a valid, empty request.
 */
export function decodeLogsRequest(body: Buffer, encoding: OtlpEncoding): OtlpLogsRequest {
  const { request } = schema()
  if (encoding === 'protobuf') {
    let message: protobuf.Message
    try {
      message = request.decode(body)
    } catch (err) {
      throw new ApiError(
        'bad_request',
        'invalid OTLP protobuf body: not an ExportLogsServiceRequest',
        [reason(err)],
      )
    }
    return fromPlain(request.toObject(message, PLAIN))
  }
  let json: unknown
  try {
    json = JSON.parse(body.toString('utf8'))
  } catch (err) {
    throw new ApiError('invalid_json', 'invalid OTLP JSON body: not JSON', [reason(err)])
  }
  let message: protobuf.Message
  try {
    hexIdsToBase64(json)
    message = protojson.fromJson(request, json, { ignoreUnknownFields: true })
  } catch (err) {
    throw new ApiError('invalid_json', 'invalid OTLP JSON body: not an ExportLogsServiceRequest', [
      reason(err),
    ])
  }
  return fromPlain(request.toObject(message, PLAIN))
}

/**
 * The ExportLogsServiceResponse: empty on full success, `partial_success` with the number of
 * rejected records and why when some were refused.
 */
export function encodeLogsResponse(
  encoding: OtlpEncoding,
  rejected: number,
  errorMessage: string,
): Buffer {
  const { response } = schema()
  const value =
    rejected > 0 || errorMessage !== ''
      ? { partialSuccess: { rejectedLogRecords: rejected, errorMessage } }
      : {}
  const message = response.fromObject(value)
  if (encoding === 'json') return Buffer.from(protojson.toJsonString(response, message), 'utf8')
  return Buffer.from(response.encode(message).finish())
}

/** google.rpc.Status, binary: the body of an error answer to a protobuf request. */
export function encodeStatus(code: number, message: string): Buffer {
  const { status } = schema()
  return Buffer.from(status.encode(status.fromObject({ code, message })).finish())
}

/** The gRPC status code OTLP/HTTP pairs with an HTTP status (OTLP spec, "Failures"). */
export function grpcCodeOf(httpStatus: number): number {
  switch (httpStatus) {
    case 400:
    case 413:
    case 415:
      return 3 // INVALID_ARGUMENT
    case 401:
      return 16 // UNAUTHENTICATED
    case 403:
      return 7 // PERMISSION_DENIED
    case 404:
      return 5 // NOT_FOUND
    case 429:
      return 8 // RESOURCE_EXHAUSTED
    case 503:
      return 14 // UNAVAILABLE
    default:
      return httpStatus >= 500 ? 13 : 2 // INTERNAL : UNKNOWN
  }
}
