// Conformance driver for cron check-ins with the stock Node SDK (@sentry/node), unmodified.
//
//   SENTRY_TEST_DSN=http://<key>@127.0.0.1:<port>/<project> \
//     node conformance/drivers/node/crons.mjs <scenario> --slug <slug> [--sdk <package>]
//
// Scenarios:
//   crontab   withMonitor around a job, crontab schedule */5 in Europe/Berlin, margin 1, max 5
//   interval  captureCheckIn in_progress then ok (duration 1.5 s), every 10 minutes, margin 2
//   hang      captureCheckIn in_progress with max_runtime 1 and never closed (a hung job)
//   fail      withMonitor around a job that throws: the SDK sends an error check-in
// Prints one JSON line {"sdk":{"package","version"},"scenario","slug","check_in_ids":[…]}.

import { flushAndReport, parseArgs, scenarioOf, startSdk } from './common.mjs'

const USAGE = 'usage: crons.mjs <scenario> --slug <slug> [--sdk <package>]'

const args = parseArgs(process.argv.slice(2), USAGE, { options: ['slug'], required: ['slug'] })
const Sentry = await startSdk(args.sdk, { release: 'crons@1.0.0' })

const crontab = {
  schedule: { type: 'crontab', value: '*/5 * * * *' },
  checkinMargin: 1,
  maxRuntime: 5,
  timezone: 'Europe/Berlin',
}
const interval = { schedule: { type: 'interval', value: 10, unit: 'minute' }, checkinMargin: 2 }

const scenarios = {
  async crontab() {
    await Sentry.withMonitor(args.slug, async () => new Promise((r) => setTimeout(r, 20)), crontab)
    return []
  },
  async interval() {
    const id = Sentry.captureCheckIn({ monitorSlug: args.slug, status: 'in_progress' }, interval)
    Sentry.captureCheckIn({ checkInId: id, monitorSlug: args.slug, status: 'ok', duration: 1.5 })
    return [id]
  },
  async hang() {
    const config = { ...crontab, maxRuntime: 1 }
    return [Sentry.captureCheckIn({ monitorSlug: args.slug, status: 'in_progress' }, config)]
  },
  async fail() {
    try {
      await Sentry.withMonitor(
        args.slug,
        async () => {
          throw new Error('conformance job failed')
        },
        crontab,
      )
    } catch {
      // withMonitor sent the error check-in and rethrew.
    }
    return []
  },
}

const run = scenarioOf(scenarios, args.scenario)
const ids = await run()
await flushAndReport(Sentry, args.sdk, {
  scenario: args.scenario,
  slug: args.slug,
  check_in_ids: ids,
})
