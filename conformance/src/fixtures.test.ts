import { describe, inject, it } from 'vitest'
import { Api } from './harness/api.ts'
import { runFixtureCase } from './harness/fixture-run.ts'
import { loadFixtureCases } from './harness/fixtures.ts'

const serverUrl = inject('serverUrl')
const adminToken = inject('adminToken')
const api = new Api(serverUrl, adminToken)
const cases = await loadFixtureCases()

describe.concurrent('fixtures', () => {
  for (const fixture of cases) {
    const { pending, description } = fixture.expected
    if (pending !== undefined) {
      it.todo(`${fixture.id} (pending: ${pending})`)
      continue
    }
    it(`${fixture.id}: ${description}`, async ({ expect }) => {
      await runFixtureCase({ api, serverUrl, adminToken }, fixture, expect)
    })
  }
})
