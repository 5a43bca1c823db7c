/**
 * One OTLP log record of error severity → an event payload in the SDK shape, so it goes through
 * the same normaliser, grouping, storage, alerts and triage as an exception sent by an SDK.
 * Attribute names follow the OpenTelemetry semantic conventions.
 */
import type { AnyJson, Attributes, OtlpLogRecord, OtlpScope } from './decode.ts'
import { severityLevel } from './severity.ts'
import { parseStacktrace } from './stacktrace.ts'

/** A record with the resource and scope it was exported under. */
export interface RecordInput {
  resource: Attributes
  scope: OtlpScope
  record: OtlpLogRecord
}

/** `telemetry.sdk.language` → event platform (drives stack-trace grouping rules). */
const PLATFORMS: Record<string, string> = {
  nodejs: 'node',
  webjs: 'javascript',
  python: 'python',
  java: 'java',
  go: 'go',
  dotnet: 'csharp',
  ruby: 'ruby',
  php: 'php',
  rust: 'native',
  cpp: 'native',
  erlang: 'elixir',
  swift: 'cocoa',
}

/** Attributes that become the event's exception instead of tags. */
const EXCEPTION_PREFIX = 'exception.'
/** Tags per event at most (resource and record attributes together). */
const MAX_TAGS = 100

const own = (attrs: Attributes, key: string): AnyJson | undefined =>
  Object.hasOwn(attrs, key) ? attrs[key] : undefined

/** A non-empty string attribute. */
function str(attrs: Attributes, key: string): string | undefined {
  const v = own(attrs, key)
  return typeof v === 'string' && v.trim() !== '' ? v : undefined
}

/** A value as text: strings as they are, everything else as JSON (Relay stringifies too). */
export function asText(v: AnyJson | undefined): string | undefined {
  if (v === undefined || v === null) return undefined
  return typeof v === 'string' ? v : JSON.stringify(v)
}

/** Scalar attributes as tag values; arrays and maps stay in the `otel` context only. */
function tagsOf(...sources: Attributes[]): Record<string, string> {
  const tags: Record<string, string> = Object.create(null)
  let count = 0
  for (const attrs of sources) {
    for (const [key, value] of Object.entries(attrs)) {
      if (key === '' || key.startsWith(EXCEPTION_PREFIX)) continue
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
        continue
      }
      if (!Object.hasOwn(tags, key)) {
        if (count >= MAX_TAGS) continue
        count++
      }
      tags[key] = String(value)
    }
  }
  return tags
}

/** Nanoseconds → float seconds with microsecond precision; undefined for 0 (unknown). */
function seconds(nanos: bigint): number | undefined {
  return nanos > 0n ? Number(nanos / 1000n) / 1e6 : undefined
}

/** The event's exception from `exception.*`, and the platform its stack trace was written in. */
function exceptionOf(
  attrs: Attributes,
): { exception: Record<string, unknown>; platform: string | undefined } | undefined {
  const stackText = str(attrs, 'exception.stacktrace')
  const parsed = stackText === undefined ? undefined : parseStacktrace(stackText)
  const type = str(attrs, 'exception.type') ?? parsed?.type
  const value = str(attrs, 'exception.message') ?? parsed?.value
  if (type === undefined && value === undefined && parsed === undefined) return undefined
  const exception = {
    values: [
      {
        ...(type !== undefined ? { type } : {}),
        ...(value !== undefined ? { value } : {}),
        ...(parsed !== undefined ? { stacktrace: { frames: parsed.frames } } : {}),
        mechanism: { type: 'otlp', handled: true },
      },
    ],
  }
  return { exception, platform: parsed?.platform }
}

function contextsOf(input: RecordInput): Record<string, unknown> {
  const { resource, scope, record } = input
  const contexts: Record<string, unknown> = {}
  if (record.traceId !== undefined) {
    contexts['trace'] = {
      type: 'trace',
      trace_id: record.traceId,
      ...(record.spanId !== undefined ? { span_id: record.spanId } : {}),
    }
  }
  const runtime = str(resource, 'process.runtime.name')
  if (runtime !== undefined) {
    const version = str(resource, 'process.runtime.version')
    contexts['runtime'] = { type: 'runtime', name: runtime, ...(version ? { version } : {}) }
  }
  contexts['otel'] = {
    type: 'otel',
    resource,
    attributes: record.attributes,
    ...(scope.name !== '' || scope.version !== '' || Object.keys(scope.attributes).length > 0
      ? { scope }
      : {}),
    ...(record.severityNumber !== 0 ? { severity_number: record.severityNumber } : {}),
    ...(record.severityText !== '' ? { severity_text: record.severityText } : {}),
    ...(record.eventName !== '' ? { event_name: record.eventName } : {}),
  }
  return contexts
}

/**
 * The event payload for an error record: message from the body, level from the severity,
 * exception from `exception.*`, release/environment/server from the resource, attributes as
 * tags and (all of them, structured) in the `otel` context, trace and span ids in `trace`.
 */
export function recordToEvent(
  input: RecordInput,
  opts: { eventId: string; received: number },
): Record<string, unknown> {
  const { resource, scope, record } = input
  const attrs = record.attributes
  const language = str(resource, 'telemetry.sdk.language')?.toLowerCase()
  const exception = exceptionOf(attrs)
  const message =
    asText(record.body) ?? str(attrs, 'exception.message') ?? (record.eventName || undefined)
  const sdkName = str(resource, 'telemetry.sdk.name')
  const sdkVersion = str(resource, 'telemetry.sdk.version')
  const event: Record<string, unknown> = {
    event_id: opts.eventId,
    timestamp:
      seconds(record.timeUnixNano) ?? seconds(record.observedTimeUnixNano) ?? opts.received / 1000,
    platform:
      (language !== undefined && Object.hasOwn(PLATFORMS, language)
        ? PLATFORMS[language]
        : undefined) ??
      exception?.platform ??
      'other',
    level: severityLevel(record.severityNumber, record.severityText),
    tags: tagsOf(resource, attrs),
    contexts: contextsOf(input),
  }
  const optional: Record<string, string | undefined> = {
    logger: scope.name || undefined,
    message,
    release: str(resource, 'service.version'),
    environment:
      str(resource, 'deployment.environment.name') ?? str(resource, 'deployment.environment'),
    server_name: str(resource, 'host.name'),
  }
  for (const [key, value] of Object.entries(optional)) if (value !== undefined) event[key] = value
  if (exception !== undefined) event['exception'] = exception.exception
  if (sdkName !== undefined) {
    event['sdk'] = { name: sdkName, ...(sdkVersion !== undefined ? { version: sdkVersion } : {}) }
  }
  return event
}
