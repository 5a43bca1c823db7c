/**
 * OTLP logs in the conformance suite: running the OpenTelemetry JS driver (its report has no
 * event ids, so `runDriver` does not fit), replaying captured OTLP exports from `fixtures/otlp/`,
 * and reading a project's outcome counters through the management API.
 */
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { z } from 'zod'
import { adminRequest } from './api.ts'
import { type Driver, runForReport } from './drivers.ts'
import { type OutcomeTotal, outcomeTotalSchema } from './outcomes.ts'
import { fixturesRoot } from './paths.ts'

/** Options of one driver run (`send.mjs --exporter … --auth … --compression … --path …`). */
export interface OtelRun {
  scenario: string
  dsn: string
  exporter: 'http' | 'proto'
  auth?: 'header' | 'query'
  compression?: 'none' | 'gzip'
  path?: 'otlp' | 'integration'
}

/** What `drivers/otel-js/send.mjs` prints as its last line. */
export const otelReportSchema = z.strictObject({
  sdk: z.strictObject({ package: z.string(), version: z.string() }),
  scenario: z.string(),
  exporter: z.enum(['http', 'proto']),
  records: z.number().int(),
  results: z.array(z.strictObject({ code: z.number().int(), error: z.string().optional() })),
  trace_id: z.string().regex(/^[0-9a-f]{32}$/),
})
/** A parsed driver report. */
export type OtelReport = z.infer<typeof otelReportSchema>

/** Runs the OpenTelemetry driver in a clean environment; throws with its output on failure. */
export async function runOtelDriver(driver: Driver, run: OtelRun): Promise<OtelReport> {
  if (driver.command[0] !== 'node') throw new Error(`driver ${driver.name} is not a node program`)
  const args = [
    run.scenario,
    ...['--exporter', run.exporter],
    ...['--auth', run.auth ?? 'header'],
    ...['--compression', run.compression ?? 'none'],
    ...['--path', run.path ?? 'otlp'],
  ]
  return runForReport(driver, args, run.dsn, 30_000, otelReportSchema)
}

/** The project's outcome totals of the last 24 hours (the endpoint's default range). */
export async function fetchOutcomes(
  serverUrl: string,
  token: string,
  projectId: number,
): Promise<OutcomeTotal[]> {
  const body = await adminRequest(serverUrl, token, 'GET', `/api/0/projects/${projectId}/outcomes/`)
  return z
    .strictObject({ since: z.string(), until: z.string(), totals: z.array(outcomeTotalSchema) })
    .parse(body).totals
}

/** How a fixture's bytes are sent. */
export const otlpSendSchema = z.strictObject({
  contentEncoding: z.enum(['identity', 'gzip']).optional(),
  auth: z.enum(['header', 'query']).optional(),
  path: z.enum(['otlp', 'integration']).optional(),
})

/** `fixtures/otlp/<case>.expected.json`. */
export const otlpExpectedSchema = z.strictObject({
  description: z.string().min(1),
  source: z.string().optional(),
  send: otlpSendSchema.optional(),
  response: z.strictObject({
    status: z.number().int(),
    contentType: z.string().optional(),
    /** Exact JSON body, for JSON requests. */
    json: z.unknown().optional(),
    /** Exact body bytes as hex, for protobuf requests ('' = empty ExportLogsServiceResponse). */
    hex: z.string().optional(),
  }),
  /** Outcome counters the project must end up with (exactly these, in any order). */
  outcomes: z.array(
    z.strictObject({
      outcome: z.string(),
      reason: z.string(),
      category: z.string(),
      quantity: z.number().int(),
    }),
  ),
  /** The project's issues (exactly these, any order), each matched partially. */
  issues: z.array(
    z.strictObject({
      title: z.string(),
      level: z.string(),
      count: z.number().int(),
      culprit: z.string().optional(),
      /** Partial object the issue's newest event must match. */
      event: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
})
/** A parsed OTLP fixture expectation. */
export type OtlpExpected = z.infer<typeof otlpExpectedSchema>

/** One OTLP fixture: the export's bytes, its Content-Type and what should happen. */
export interface OtlpCase {
  id: string
  body: Buffer
  contentType: 'application/json' | 'application/x-protobuf'
  expected: OtlpExpected
}

/** Every `<case>.otlp.json` / `<case>.otlp.pb` with its `<case>.expected.json`. */
export async function loadOtlpCases(
  root: string = join(fixturesRoot, 'otlp'),
): Promise<OtlpCase[]> {
  const names = (await readdir(root)).sort()
  const cases: OtlpCase[] = []
  for (const name of names) {
    const match = /^(.+)\.otlp\.(json|pb)$/.exec(name)
    if (match === null || match[1] === undefined) continue
    const id = match[1]
    const expected = otlpExpectedSchema.parse(
      JSON.parse(await readFile(join(root, `${id}.expected.json`), 'utf8')),
    )
    cases.push({
      id,
      body: await readFile(join(root, name)),
      contentType: match[2] === 'json' ? 'application/json' : 'application/x-protobuf',
      expected,
    })
  }
  return cases
}

/** The answer to one OTLP request. */
export interface OtlpResponse {
  status: number
  contentType: string
  body: Buffer
}

/** Posts an OTLP export to a project's logs endpoint the way the case says. */
export async function sendOtlp(
  target: { url: string; projectId: number; publicKey: string },
  body: Buffer,
  contentType: string,
  send: z.infer<typeof otlpSendSchema> = {},
): Promise<OtlpResponse> {
  const prefix = send.path === 'integration' ? 'integration/otlp' : 'otlp'
  const url = new URL(`${target.url}/api/${target.projectId}/${prefix}/v1/logs`)
  const headers: Record<string, string> = { 'content-type': contentType }
  if (send.auth === 'query') url.searchParams.set('sentry_key', target.publicKey)
  else headers['x-sentry-auth'] = `sentry sentry_key=${target.publicKey}`
  let payload = body
  if (send.contentEncoding === 'gzip') {
    payload = gzipSync(body)
    headers['content-encoding'] = 'gzip'
  }
  const response = await fetch(url, { method: 'POST', headers, body: payload })
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    body: Buffer.from(await response.arrayBuffer()),
  }
}
