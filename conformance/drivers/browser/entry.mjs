// The page side of the browser driver: the stock SDK, unmodified, configured from the page's
// query string (dsn, release, environment) and driven by window.__run(scenario). esbuild bundles
// this file once per SDK major (the import is aliased to sentry-browser-10 for v10).
import * as Sentry from '@sentry/browser'

const params = new URLSearchParams(window.location.search)
const sent = []

Sentry.init({
  dsn: params.get('dsn'),
  release: params.get('release') || 'conformance@1.0.0',
  environment: params.get('environment') || 'test',
  tracesSampleRate: 0,
  // Only records what the SDK is about to send; the event is returned unchanged.
  beforeSend(event) {
    sent.push(event.event_id)
    return event
  },
})

// The thrower sits in its own function and is always called from the same line, so both
// captures carry identical stack traces: one issue, two events.
function boom() {
  throw new Error('conformance boom')
}

const waitFor = async (check, ms) => {
  const deadline = Date.now() + ms
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
}

const scenarios = {
  // Same exception twice from the same code, and two messages differing only in a number,
  // alternating so the SDK's dedupe integration keeps all four.
  async grouping() {
    const groups = { exception: [], message: [] }
    for (const order of [17, 42]) {
      try {
        boom()
      } catch (error) {
        groups.exception.push(Sentry.captureException(error))
      }
      groups.message.push(Sentry.captureMessage(`conformance order ${order} failed`))
    }
    return groups
  },
  // An uncaught error: the global handler reports it and the page session ends as
  // `unhandled` (v11) or `crashed` (v10).
  async crash() {
    const before = sent.length
    setTimeout(() => {
      throw new Error('conformance uncaught')
    })
    await waitFor(() => sent.length > before, 5000)
    return { uncaught: sent.slice(before) }
  },
}

window.__run = async (name) => {
  const run = scenarios[name]
  if (run === undefined) throw new Error(`unknown scenario ${name}`)
  const groups = await run()
  const flushed = await Sentry.flush(5000)
  return { version: Sentry.SDK_VERSION, groups, flushed }
}
window.__ready = true
