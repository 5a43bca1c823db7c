// Conformance driver for the stock OpenTelemetry JavaScript log exporters, unmodified:
// @opentelemetry/sdk-logs (LoggerProvider + BatchLogRecordProcessor) with
// @opentelemetry/exporter-logs-otlp-http (JSON) or @opentelemetry/exporter-logs-otlp-proto.
//
//   SENTRY_TEST_DSN=http://<key>@127.0.0.1:<port>/<project> \
//     node conformance/drivers/otel-js/send.mjs <scenario> [--exporter http|proto]
//       [--auth header|query] [--compression none|gzip] [--path otlp|integration]
//
// The exporter is pointed at `/api/<project>/otlp/v1/logs` (or Relay's `integration/otlp/...`)
// with the DSN key in the `x-sentry-auth: sentry sentry_key=KEY` header (as Sentry documents for
// OTLP) or in the query string. Prints one JSON line: {"sdk":{"package","version"},"scenario",
// "exporter","records","results":[{"code","error"}],"trace_id"}. Exit code 0 only if every
// export the SDK made reported success.

import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

const USAGE =
  'usage: send.mjs <scenario> [--exporter http|proto] [--auth header|query] [--compression none|gzip] [--path otlp|integration]'
const PACKAGES = {
  http: '@opentelemetry/exporter-logs-otlp-http',
  proto: '@opentelemetry/exporter-logs-otlp-proto',
}

function parseArgs(argv) {
  const options = { exporter: 'http', auth: 'header', compression: 'none', path: 'otlp' }
  const allowed = {
    exporter: ['http', 'proto'],
    auth: ['header', 'query'],
    compression: ['none', 'gzip'],
    path: ['otlp', 'integration'],
  }
  let scenario
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    const flag = /^--(\w+)(?:=(.*))?$/.exec(arg)
    if (flag !== null) {
      const [, name, inline] = flag
      const value = inline ?? argv[++i]
      if (!(name in allowed) || !allowed[name].includes(value))
        throw new Error(`bad ${arg}\n${USAGE}`)
      options[name] = value
    } else if (scenario === undefined) scenario = arg
    else throw new Error(`unexpected argument ${arg}\n${USAGE}`)
  }
  if (scenario === undefined) throw new Error(USAGE)
  return { scenario, ...options }
}

// Errors are thrown from one place so that both carry the same stack: one issue.
function chargeCard(order) {
  throw new TypeError(`card for order ${order} was declined`)
}

const TRACE_ID = '5b8efff798038103d269b633813fc60c'
const SPAN_ID = 'eee19b7ec3c1b174'

const scenarios = {
  // INFO and WARN (counted, dropped), two ERROR records with an exception differing only in
  // the order number (one issue), two FATAL records differing only in a number (another).
  levels({ logger, SeverityNumber, api }) {
    const traced = api.trace.setSpanContext(api.context.active(), {
      traceId: TRACE_ID,
      spanId: SPAN_ID,
      traceFlags: api.TraceFlags.SAMPLED,
    })
    const emit = (record) => logger.emit(record)
    emit({
      severityNumber: SeverityNumber.INFO,
      severityText: 'INFO',
      body: 'user 1001 signed in',
      attributes: { 'user.id': 1001 },
    })
    emit({
      severityNumber: SeverityNumber.WARN,
      severityText: 'WARN',
      body: 'disk 87% full',
    })
    for (const order of [4711, 4712]) {
      try {
        chargeCard(order)
      } catch (error) {
        emit({
          severityNumber: SeverityNumber.ERROR,
          severityText: 'ERROR',
          body: `payment for order ${order} failed`,
          attributes: { 'order.id': order, 'payment.provider': 'acme' },
          exception: error,
          context: traced,
        })
      }
    }
    for (const attempts of [3, 5]) {
      emit({
        severityNumber: SeverityNumber.FATAL,
        severityText: 'FATAL',
        body: `database unreachable after ${attempts} attempts`,
      })
    }
    return 6
  },
}

const args = parseArgs(process.argv.slice(2))
const run = scenarios[args.scenario]
if (run === undefined)
  throw new Error(`unknown scenario ${args.scenario}: ${Object.keys(scenarios)}`)
const dsn = process.env.SENTRY_TEST_DSN
if (!dsn) throw new Error('SENTRY_TEST_DSN is not set')
const parsed = new URL(dsn)
const key = decodeURIComponent(parsed.username)
const projectId = parsed.pathname.split('/').filter(Boolean).at(-1)
const prefix = args.path === 'integration' ? 'integration/otlp' : 'otlp'
const url = new URL(`${parsed.origin}/api/${projectId}/${prefix}/v1/logs`)
const headers = {}
if (args.auth === 'query') url.searchParams.set('sentry_key', key)
else headers['x-sentry-auth'] = `sentry sentry_key=${key}`

const api = await import('@opentelemetry/api')
const { SeverityNumber } = await import('@opentelemetry/api-logs')
const { LoggerProvider, BatchLogRecordProcessor } = await import('@opentelemetry/sdk-logs')
const { resourceFromAttributes } = await import('@opentelemetry/resources')
const { OTLPLogExporter } = await import(PACKAGES[args.exporter])
const require = createRequire(import.meta.url)
const version = JSON.parse(
  readFileSync(require.resolve(`${PACKAGES[args.exporter]}/package.json`), 'utf8'),
).version

const exporter = new OTLPLogExporter({
  url: url.href,
  headers,
  ...(args.compression === 'gzip' ? { compression: 'gzip' } : {}),
})
// Records every export's result, so the driver fails when the server refused one.
const results = []
const recording = {
  export(records, done) {
    exporter.export(records, (result) => {
      results.push({ code: result.code, error: result.error ? String(result.error) : undefined })
      done(result)
    })
  },
  forceFlush: () => exporter.forceFlush(),
  shutdown: () => exporter.shutdown(),
}
const provider = new LoggerProvider({
  resource: resourceFromAttributes({
    'service.name': 'otel-conformance',
    'service.version': '1.2.3',
    'deployment.environment.name': 'test',
  }),
  processors: [new BatchLogRecordProcessor({ exporter: recording })],
})
const logger = provider.getLogger('conformance.otel-js', '1.0.0')
const records = run({ logger, SeverityNumber, api })
await provider.forceFlush()
await provider.shutdown()

const report = {
  sdk: { package: PACKAGES[args.exporter], version },
  scenario: args.scenario,
  exporter: args.exporter,
  records,
  results,
  trace_id: TRACE_ID,
}
process.stdout.write(`${JSON.stringify(report)}\n`)
process.exitCode = results.length > 0 && results.every((r) => r.code === 0) ? 0 : 1
