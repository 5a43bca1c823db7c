// Conformance driver: the stock Node SDK (@sentry/node), unmodified, on a machine whose clock is
// wrong. `Date` is moved by --offset-ms (negative: behind) before the SDK loads, so every time
// the SDK writes is off alike, as on a device set wrong: the event's `timestamp`, its
// breadcrumbs' and the envelope header's `sent_at`.
//
//   SENTRY_TEST_DSN=http://<key>@127.0.0.1:<port>/<project> \
//     node conformance/drivers/node/skewed-clock.mjs message --offset-ms <ms> [--sdk <package>]
//
// Prints one JSON line {"sdk":{"package","version"},"scenario","event_ids","offset_ms"}; exit
// code 0 only if the SDK reports a complete flush.

import { eventFields, flushAndReport, parseArgs, scenarioOf, startSdk } from './common.mjs'

const USAGE = 'usage: skewed-clock.mjs message --offset-ms <ms> [--sdk <package>]'

const args = parseArgs(process.argv.slice(2), USAGE, {
  options: ['offset-ms'],
  required: ['offset-ms'],
})
const offset = Number(args['offset-ms'])
if (!Number.isFinite(offset)) throw new Error(USAGE)

// `new Date()` and `Date.now()` read the wrong clock; a date built from a value stays that value.
const RealDate = Date
class SkewedDate extends RealDate {
  constructor(...values) {
    if (values.length === 0) super(RealDate.now() + offset)
    else super(...values)
  }

  static now() {
    return RealDate.now() + offset
  }
}
globalThis.Date = SkewedDate

const scenarios = {
  // One breadcrumb, then one message: both dated by the wrong clock.
  async message(Sentry) {
    Sentry.addBreadcrumb({ category: 'conformance', message: 'before the message' })
    return { message: [Sentry.captureMessage('conformance skewed clock', 'error')] }
  },
}

const run = scenarioOf(scenarios, args.scenario)
const Sentry = await startSdk(args.sdk)
const groups = await run(Sentry)
await flushAndReport(Sentry, args.sdk, { ...eventFields(args.scenario, groups), offset_ms: offset })
