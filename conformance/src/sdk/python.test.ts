import { describe, inject, it } from 'vitest'
import { Api } from '../harness/api.ts'
import { loadDriver } from '../harness/drivers.ts'
import { checkGrouping } from './grouping.ts'

const api = new Api(inject('serverUrl'), inject('adminToken'))
const driver = loadDriver('python')

// sentry-sdk 2.x in conformance/.venv (scripts/setup-python.mjs); it always compresses.
describe('sentry-sdk (python)', () => {
  if (driver.missing !== undefined) {
    it.skip(`python driver unavailable: ${driver.missing}`, () => {})
    return
  }

  it('grouping: one exception issue and one message issue, two events each', async ({ expect }) => {
    await checkGrouping(expect, api, driver, undefined, {
      exceptionTitle: 'ZeroDivisionError: division by zero',
    })
  })
})
