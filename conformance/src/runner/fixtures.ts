/**
 * Fixtures against the target: every envelope case under `fixtures/` and every captured OTLP
 * export under `fixtures/otlp/` (ids `otlp/<name>`) replayed with the same checks the vitest
 * suite applies, each one a line of the report. Pending cases are reported as not
 * supported with their pending note, never as passes.
 */
import { expect } from 'vitest'
import { Api } from '../harness/api.ts'
import { runFixtureCase } from '../harness/fixture-run.ts'
import { loadFixtureCases } from '../harness/fixtures.ts'
import { loadOtlpCases } from '../harness/otel.ts'
import { runOtlpFixtureCase } from '../harness/otlp-fixture-run.ts'
import type { FixtureResult } from './report.ts'

/** Replays every fixture case against `url`, `concurrency` at a time. */
export async function replayFixtures(
  url: string,
  token: string,
  concurrency: number,
  log: (line: string) => void,
): Promise<FixtureResult[]> {
  const server = { api: new Api(url, token), serverUrl: url, adminToken: token }
  const envelopes = (await loadFixtureCases()).map((fixture) => ({
    id: fixture.id,
    description: fixture.expected.description,
    pending: fixture.expected.pending,
    run: () => runFixtureCase(server, fixture, expect),
  }))
  const otlp = (await loadOtlpCases()).map((fixture) => ({
    id: `otlp/${fixture.id}`,
    description: fixture.expected.description,
    pending: undefined,
    run: () => runOtlpFixtureCase(server, fixture, expect),
  }))
  const cases = [...envelopes, ...otlp]
  const results: FixtureResult[] = []
  let next = 0
  const worker = async () => {
    while (next < cases.length) {
      const fixture = cases[next++]
      if (fixture === undefined) break
      const { pending, description } = fixture
      if (pending !== undefined) {
        results.push({ id: fixture.id, description, status: 'unsupported', reason: pending })
        continue
      }
      const started = Date.now()
      try {
        await fixture.run()
        results.push({ id: fixture.id, description, status: 'pass' })
      } catch (error) {
        const reason = (error instanceof Error ? error.message : String(error)).slice(0, 2000)
        results.push({ id: fixture.id, description, status: 'fail', reason })
        log(`fixture ${fixture.id}: fail: ${reason.split('\n')[0]}`)
      }
      const last = results.at(-1)
      if (last !== undefined) last.durationMs = Date.now() - started
    }
  }
  log(`replaying ${cases.length} fixture cases`)
  await Promise.all(Array.from({ length: concurrency }, worker))
  results.sort((a, b) => a.id.localeCompare(b.id))
  const passed = results.filter((r) => r.status === 'pass').length
  log(`fixtures: ${passed}/${results.length} passed`)
  return results
}
