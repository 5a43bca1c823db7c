import { describe, inject, it } from 'vitest'
import { Api } from './harness/api.ts'
import { loadOtlpCases } from './harness/otel.ts'
import { runOtlpFixtureCase } from './harness/otlp-fixture-run.ts'

const serverUrl = inject('serverUrl')
const adminToken = inject('adminToken')
const api = new Api(serverUrl, adminToken)
const cases = await loadOtlpCases()

describe.concurrent('OTLP fixtures', () => {
  it('finds the captured cases', () => {
    if (cases.length < 2)
      throw new Error(`expected the JSON and protobuf cases, found ${cases.length}`)
  })
  for (const fixture of cases) {
    it(`${fixture.id}: ${fixture.expected.description}`, async ({ expect }) => {
      await runOtlpFixtureCase({ api, serverUrl, adminToken }, fixture, expect)
    })
  }
})
