/**
 * OTLP logs from the stock OpenTelemetry JS logs SDK, with both exporters (JSON and protobuf)
 * and both documented ways in (header auth + gzip on `/otlp/`, query auth uncompressed on the
 * integration path): ERROR and FATAL records become issues, INFO and WARN are counted.
 */
import { fetchOutcomes, type OtelRun, runOtelDriver } from '../../harness/otel.ts'
import { waitFor } from '../../harness/wait.ts'
import type { CellContext } from '../context.ts'
import type { Scenario } from './scenario.ts'

const VARIANTS: Omit<OtelRun, 'scenario' | 'dsn'>[] = [
  { exporter: 'http', auth: 'header', compression: 'gzip', path: 'otlp' },
  { exporter: 'proto', auth: 'query', compression: 'none', path: 'integration' },
]

async function checkVariant(ctx: CellContext, variant: (typeof VARIANTS)[number]) {
  const { expect } = ctx
  const project = await ctx.createProject(`otlp-${variant.exporter}`)
  ctx.track(project)
  const report = await runOtelDriver(ctx.driver, {
    scenario: 'levels',
    dsn: project.dsn,
    ...variant,
  })
  ctx.evidence.sdk = report.sdk
  expect(report.results.length).toBeGreaterThan(0)
  expect(report.results.every((r) => r.code === 0)).toBe(true)
  const issues = await waitFor(
    async () => {
      const list = await ctx.api.issues(project.id)
      return list.length === 2 && list.every((i) => i.count === 2) ? list : undefined
    },
    { timeout: ctx.readBackMs, message: 'two issues with two events each' },
  )
  ctx.note(`issues (${variant.exporter})`, issues)
  const error = issues.find((issue) => issue.level === 'error')
  const fatal = issues.find((issue) => issue.level === 'fatal')
  expect(error?.title).toMatch(/^TypeError: card for order 471[12] was declined$/)
  expect(fatal?.title).toMatch(/^database unreachable after [35] attempts$/)
  const outcomes = ctx.note(
    `outcomes (${variant.exporter})`,
    await fetchOutcomes(ctx.target.url, ctx.target.token, project.id),
  )
  expect(outcomes).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ outcome: 'accepted', category: 'error', quantity: 4 }),
      expect.objectContaining({ outcome: 'unsupported', reason: 'log', quantity: 2 }),
    ]),
  )
}

/** OTLP logs. */
export const otlpLogs: Scenario = {
  id: 'otlp-logs',
  async run(ctx) {
    for (const variant of VARIANTS) await checkVariant(ctx, variant)
  },
}
