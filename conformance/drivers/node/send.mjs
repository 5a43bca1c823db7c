// Conformance driver for the stock Node SDK (@sentry/node 7, 8, 9, 10, 11), unmodified.
//
//   SENTRY_TEST_DSN=http://<key>@127.0.0.1:<port>/<project> \
//     node conformance/drivers/node/send.mjs <scenario> [--sdk <package>]
//
// <package> is the npm name the SDK is installed under: @sentry/node (latest) or one of the
// aliases sentry-node-7, sentry-node-8, sentry-node-9, sentry-node-10 (default: $SENTRY_TEST_SDK, else
// @sentry/node). Prints one JSON line: {"sdk":{"package","version"},"scenario","event_ids",
// "groups"} where groups maps an expected-issue label to the event ids that belong to it.
// Exit code 0 only if the SDK reports a complete flush.

import { captureBatches } from '../aggregate-errors.mjs'
import { eventFields, flushAndReport, parseArgs, scenarioOf, startSdk } from './common.mjs'

const USAGE = 'usage: send.mjs <scenario> [--sdk <package>]'

// The thrower sits in its own function and is always called from the same line, so both
// captures carry identical stack traces: one issue, two events.
function boom() {
  throw new Error('conformance boom')
}

const scenarios = {
  // Same exception twice from the same code, and two messages differing only in a number.
  // The SDK's default dedupe integration drops an event identical to the one processed just
  // before it, and event processing is asynchronous: alternating exception and message and
  // flushing after each capture pins the processing order, so all four events are sent.
  async grouping(Sentry) {
    const groups = { exception: [], message: [] }
    for (const order of [17, 42]) {
      try {
        boom()
      } catch (error) {
        groups.exception.push(Sentry.captureException(error))
      }
      await Sentry.flush(5000)
      groups.message.push(Sentry.captureMessage(`conformance order ${order} failed`))
      await Sentry.flush(5000)
    }
    return groups
  },

  // AggregateErrors (aggregate-errors.mjs): two of copies of one error, then two of the same
  // two errors in another order and count.
  async 'exception-groups'(Sentry) {
    return captureBatches((error) => Sentry.captureException(error))
  },

  // One message with ~50 KB of extra data: the Node transport gzips bodies above 32 KiB
  // (GZIP_THRESHOLD in @sentry/node's http transport), so this request is compressed. Many
  // short strings, not one long one: normalisation cuts long strings and wide arrays.
  async large(Sentry) {
    const extra = {}
    for (let i = 0; i < 800; i++) extra[`line${i}`] = `conformance payload line ${i} `.repeat(2)
    return { large: [Sentry.captureMessage('conformance large payload', { level: 'info', extra })] }
  },
}

const { sdk, scenario } = parseArgs(process.argv.slice(2), USAGE)
const run = scenarioOf(scenarios, scenario)
const Sentry = await startSdk(sdk, { release: 'conformance@1.0.0' })
const groups = await run(Sentry)
await flushAndReport(Sentry, sdk, eventFields(scenario, groups))
