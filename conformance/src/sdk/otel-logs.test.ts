import { describe, inject, it } from 'vitest'
import { Api } from '../harness/api.ts'
import { loadDriver } from '../harness/drivers.ts'
import { fetchOutcomes, type OtelRun, runOtelDriver } from '../harness/otel.ts'
import { waitFor } from '../harness/wait.ts'

const serverUrl = inject('serverUrl')
const adminToken = inject('adminToken')
const api = new Api(serverUrl, adminToken)
const driver = loadDriver('otel-js')

/** How the exporter reaches the server: both documented auth placements, both paths, gzip. */
const VARIANTS: Omit<OtelRun, 'scenario' | 'dsn' | 'exporter'>[] = [
  { auth: 'header', compression: 'gzip', path: 'otlp' },
  { auth: 'query', compression: 'none', path: 'integration' },
]

// The stock OpenTelemetry JS logs SDK with each OTLP/HTTP log exporter (JSON and protobuf).
describe.concurrent.each(['http', 'proto'] as const)('exporter-logs-otlp-%s', (exporter) => {
  if (driver.missing !== undefined) {
    it.skip(`otel-js driver unavailable: ${driver.missing}`, () => {})
    return
  }

  for (const variant of VARIANTS) {
    const name = `${variant.auth} auth, ${variant.compression}, /${variant.path}/ path`
    it(`${name}: ERROR and FATAL become issues, INFO and WARN are counted`, async ({ expect }) => {
      const project = await api.createProject(`otel-${exporter}-${variant.auth}-${variant.path}`)
      const report = await runOtelDriver(driver, {
        scenario: 'levels',
        dsn: project.dsn,
        exporter,
        ...variant,
      })
      expect(report.results.length).toBeGreaterThan(0)
      expect(report.results.every((r) => r.code === 0)).toBe(true)

      const issues = await waitFor(
        async () => {
          const list = await api.issues(project.id)
          expect(list.map((issue) => issue.count)).toEqual([2, 2])
          return list
        },
        { timeout: 10_000, message: 'two issues with two events each' },
      )
      const error = issues.find((issue) => issue.level === 'error')
      const fatal = issues.find((issue) => issue.level === 'fatal')
      expect(error?.title).toMatch(/^TypeError: card for order 471[12] was declined$/)
      expect(error?.culprit).toMatch(/send\.mjs in chargeCard$/)
      expect(fatal?.title).toMatch(/^database unreachable after [35] attempts$/)

      // The error records keep their trace id, attributes and resource.
      const [ref] = await api.issueEvents(error?.id ?? 0)
      const event = await api.event(project.id, ref?.event_id ?? '')
      expect(event).toMatchObject({
        level: 'error',
        release: '1.2.3',
        environment: 'test',
        logger: 'conformance.otel-js',
        contexts: { trace: { trace_id: report.trace_id } },
        exception: { values: [{ type: 'TypeError' }] },
      })
      expect(event?.['tags']).toEqual(
        expect.arrayContaining([
          ['service.name', 'otel-conformance'],
          ['payment.provider', 'acme'],
        ]),
      )

      const outcomes = await fetchOutcomes(serverUrl, adminToken, project.id)
      expect(outcomes).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ outcome: 'accepted', category: 'error', quantity: 4 }),
          expect.objectContaining({
            outcome: 'unsupported',
            reason: 'log',
            category: 'log_item',
            quantity: 2,
          }),
        ]),
      )
      expect(outcomes).toHaveLength(2)
    })
  }
})
