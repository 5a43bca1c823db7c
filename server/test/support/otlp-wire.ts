/**
 * Test-side OTLP encoding: builds OTLP/JSON exports and turns them into the protobuf bytes an
 * exporter would send, with protobufjs and the vendored schema loaded here independently of
 * `src/otlp/decode.ts` (so a broken loader there cannot make both sides agree).
 */
import { fileURLToPath } from 'node:url'
import protobuf from 'protobufjs'
import protojson from 'protobufjs/ext/protojson.js'

const dir = fileURLToPath(new URL('../../src/otlp/proto/', import.meta.url))
const root = new protobuf.Root()
root.resolvePath = (_origin, target) => `${dir}${target}`
root.loadSync('opentelemetry/proto/collector/logs/v1/logs_service.proto')
root.resolveAll()
const Request = root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest')
const Response = root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse')
const Status = protobuf
  .parse(
    'syntax = "proto3"; package google.rpc; message Status { int32 code = 1; string message = 2; }',
  )
  .root.lookupType('google.rpc.Status')

type Scalar = string | number | boolean

/** An OTLP/JSON AnyValue for a scalar. */
export function value(v: Scalar): Record<string, Scalar> {
  if (typeof v === 'string') return { stringValue: v }
  if (typeof v === 'boolean') return { boolValue: v }
  return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v }
}

/** OTLP/JSON attributes from a plain object of scalars. */
export const kv = (attrs: Record<string, Scalar>) =>
  Object.entries(attrs).map(([key, v]) => ({ key, value: value(v) }))

/** A log record in OTLP/JSON, with sensible defaults. */
export function logRecord(r: {
  severityNumber?: number
  severityText?: string
  body?: string
  attributes?: Record<string, Scalar>
  traceId?: string
  spanId?: string
  timeUnixNano?: string
}): Record<string, unknown> {
  return {
    timeUnixNano: r.timeUnixNano ?? '1767225600123456789',
    ...(r.severityNumber !== undefined ? { severityNumber: r.severityNumber } : {}),
    ...(r.severityText !== undefined ? { severityText: r.severityText } : {}),
    ...(r.body !== undefined ? { body: { stringValue: r.body } } : {}),
    attributes: kv(r.attributes ?? {}),
    ...(r.traceId !== undefined ? { traceId: r.traceId } : {}),
    ...(r.spanId !== undefined ? { spanId: r.spanId } : {}),
  }
}

/** An ExportLogsServiceRequest in OTLP/JSON: one resource, one scope. */
export function logsExport(
  records: Record<string, unknown>[],
  resource: Record<string, Scalar> = { 'service.name': 'checkout', 'service.version': '2.0.1' },
): Record<string, unknown> {
  return {
    resourceLogs: [
      {
        resource: { attributes: kv(resource) },
        scopeLogs: [
          { scope: { name: 'checkout.payments', version: '1.0.0' }, logRecords: records },
        ],
      },
    ],
  }
}

/** OTLP/JSON ids are hex; the proto3 JSON mapping protobufjs reads has base64. */
function idsToBase64(json: unknown): unknown {
  return JSON.parse(JSON.stringify(json), (key, v) =>
    (key === 'traceId' || key === 'spanId') && typeof v === 'string'
      ? Buffer.from(v, 'hex').toString('base64')
      : v,
  )
}

/** The protobuf bytes of an OTLP/JSON export. */
export function toProtobuf(json: unknown): Buffer {
  return Buffer.from(Request.encode(protojson.fromJson(Request, idsToBase64(json))).finish())
}

/** Decodes a protobuf ExportLogsServiceResponse into plain JSON. */
export function decodeResponse(bytes: Buffer): unknown {
  return protojson.toJson(Response, Response.decode(bytes))
}

/** Decodes a protobuf google.rpc.Status. */
export function decodeStatus(bytes: Buffer): { code?: number; message?: string } {
  return Status.toObject(Status.decode(bytes)) as { code?: number; message?: string }
}
