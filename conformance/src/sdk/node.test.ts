import { describe, inject, it } from 'vitest'
import { Api } from '../harness/api.ts'
import { loadDriver } from '../harness/drivers.ts'
import { checkGrouping } from './grouping.ts'

const api = new Api(inject('serverUrl'), inject('adminToken'))
const driver = loadDriver('node')

// Every supported major of the stock SDK, installed side by side under npm aliases.
describe.concurrent.each(driver.sdks)('%s', (sdk) => {
  if (driver.missing !== undefined) {
    it.skip(`node driver unavailable: ${driver.missing}`, () => {})
    return
  }

  it('grouping: one exception issue and one message issue, two events each', async ({ expect }) => {
    await checkGrouping(expect, api, driver, sdk, { exceptionTitle: 'Error: conformance boom' })
  })
})
