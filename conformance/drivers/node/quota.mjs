// Conformance driver for quotas, rate-limit back-off and unsupported items, with the stock
// Node SDK (@sentry/node 7, 8, 9, 10, 11), unmodified.
//
//   SENTRY_TEST_DSN=http://<key>@127.0.0.1:<port>/<project> \
//     node conformance/drivers/node/quota.mjs <scenario> [--sdk <package>]
//
// Scenarios (the test sets the project's quota first; the numbers here must match it):
//   ratelimit   quota 3 per 4 s: 3 events, a 4th (answered 429), 3 more the SDK must hold back
//               (client report `ratelimit_backoff`), then after the announced time one more.
//   partial     quota 30 per 4 s: one envelope of 50 events through the SDK's own transport,
//               then the same envelope again once the announced time has passed.
//   unsupported tracing on (transactions), a log line and an attachment with one event.
// Prints one JSON line like send.mjs: {"sdk","scenario","event_ids","groups"}.

import { eventFields, flushAndReport, parseArgs, scenarioOf, startSdk } from './common.mjs'

const USAGE = 'usage: quota.mjs <scenario> [--sdk <package>]'
/** The window the test configures; waiting this long outlasts any Retry-After it announces. */
const WINDOW_SECONDS = 4

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** Captures one message and waits until the SDK has sent (or dropped) it. */
async function captureOne(Sentry, text) {
  const id = Sentry.captureMessage(text, 'error')
  await Sentry.flush(5000)
  return id
}

const scenarios = {
  async ratelimit(Sentry) {
    const groups = { accepted: [], refused: [], held_back: [], after_window: [] }
    for (let i = 0; i < 3; i++) groups.accepted.push(await captureOne(Sentry, `ratelimit ${i}`))
    groups.refused.push(await captureOne(Sentry, 'ratelimit over quota'))
    for (let i = 0; i < 3; i++) groups.held_back.push(await captureOne(Sentry, `held back ${i}`))
    // flush() above also sent the client report with the held-back events.
    await sleep(WINDOW_SECONDS * 1000 + 500)
    groups.after_window.push(await captureOne(Sentry, 'after the window'))
    return groups
  },

  async partial(Sentry, sdk) {
    // One envelope of 50 events, built with the SDK's own envelope helpers and sent through its
    // stock transport, so the transport's 429 and rate-limit handling is the SDK's.
    if (sdk !== '@sentry/node') throw new Error('partial runs with @sentry/node (latest) only')
    const core = await import('@sentry/core')
    const client = Sentry.getClient()
    const ids = []
    const items = []
    for (let i = 0; i < 50; i++) {
      const eventId = core.uuid4()
      ids.push(eventId)
      const event = {
        event_id: eventId,
        message: `partial envelope event ${i}`,
        level: 'error',
        platform: 'node',
        timestamp: Date.now() / 1000,
      }
      items.push([{ type: 'event' }, event])
    }
    const envelope = core.createEnvelope({ sent_at: new Date().toISOString() }, items)
    const transport = client.getTransport()
    await transport.send(envelope)
    await sleep(WINDOW_SECONDS * 1000 + 500)
    await transport.send(envelope)
    await Sentry.flush(5000)
    return { sent: ids }
  },

  async unsupported(Sentry) {
    Sentry.getCurrentScope().addAttachment({ filename: 'note.txt', data: 'attachment body' })
    Sentry.startSpan({ name: 'conformance transaction', op: 'task' }, () => {})
    Sentry.logger?.info('conformance log line')
    const id = Sentry.captureMessage('conformance with attachment', 'error')
    await Sentry.flush(5000)
    return { event: [id] }
  },
}

const { sdk, scenario } = parseArgs(process.argv.slice(2), USAGE)
const run = scenarioOf(scenarios, scenario)
const tracing =
  scenario === 'unsupported'
    ? // v11 streams `span` items unless the static (transaction) lifecycle is chosen; v9 needs
      // enableLogs for the logger, v10+ send logs by default.
      { tracesSampleRate: 1, traceLifecycle: 'static', enableLogs: true }
    : {}
const Sentry = await startSdk(sdk, { release: 'conformance@1.0.0', ...tracing })
const groups = await run(Sentry, sdk)
await flushAndReport(Sentry, sdk, eventFields(scenario, groups))
