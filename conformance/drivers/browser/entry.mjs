// The page side of the browser driver: the stock SDK, unmodified, configured from the page's
// query string (dsn, release, environment, user, scenario) and driven by window.__run(scenario).
// esbuild bundles this file once per SDK major (the import is aliased to sentry-browser-10 for
// v10). A scenario that needs other SDK options says so in OPTIONS; a new scenario (e.g. source
// maps) is one entry in `scenarios` and, if needed, one in OPTIONS.
import * as Sentry from '@sentry/browser'
import { captureBatches } from '../aggregate-errors.mjs'

const params = new URLSearchParams(window.location.search)
const scenario = params.get('scenario') ?? ''
const sent = []

/** The window the quota scenarios configure (`WINDOW_SECONDS` in runner/scenarios/quota.ts). */
const WINDOW_SECONDS = 4

/** SDK options per scenario beyond the defaults below. */
const OPTIONS = {
  // Everything the browser SDK sends that the server does not store: transactions (with a
  // profile of the page), a session replay and user feedback.
  unsupported: () => ({
    tracesSampleRate: 1,
    // v11 streams `span` items unless the static (transaction) lifecycle is chosen.
    traceLifecycle: 'static',
    profilesSampleRate: 1,
    profileSessionSampleRate: 1,
    profileLifecycle: 'trace',
    replaysSessionSampleRate: 1,
    replaysOnErrorSampleRate: 1,
    // A replay segment is sent however short the page was (the default waits for 5 s of it).
    integrations: [
      Sentry.browserProfilingIntegration(),
      Sentry.replayIntegration({ minReplayDuration: 0 }),
    ],
  }),
}

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
  ...(OPTIONS[scenario]?.() ?? {}),
})
if (params.get('user')) Sentry.setUser({ id: params.get('user') })

// The thrower sits in its own function and is always called from the same line, so both
// captures carry identical stack traces: one issue, two events.
function boom() {
  throw new Error('conformance boom')
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
const waitFor = async (check, ms) => {
  const deadline = Date.now() + ms
  while (!check() && Date.now() < deadline) await sleep(20)
}

/** Captures one message and waits until the SDK has sent (or dropped) it. */
async function captureOne(text) {
  const id = Sentry.captureMessage(text, 'error')
  await Sentry.flush(5000)
  return id
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
  // AggregateErrors (aggregate-errors.mjs): two of copies of one error, then two of the same
  // two errors in another order and count.
  async 'exception-groups'() {
    return captureBatches((error) => Sentry.captureException(error))
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
  // The page-load session of a page that does its work without an error.
  async ok() {
    return {}
  },
  // Quota 3 per window: 3 events, a 4th (answered 429), 3 more the SDK must hold back (its
  // client report counts them as `ratelimit_backoff`), then after the window one more.
  async ratelimit() {
    const groups = { accepted: [], refused: [], held_back: [], after_window: [] }
    for (let i = 0; i < 3; i++) groups.accepted.push(await captureOne(`ratelimit ${i}`))
    groups.refused.push(await captureOne('ratelimit over quota'))
    for (let i = 0; i < 3; i++) groups.held_back.push(await captureOne(`held back ${i}`))
    await sleep(WINDOW_SECONDS * 1000 + 500)
    groups.after_window.push(await captureOne('after the window'))
    return groups
  },
  // One event beside a transaction with its profile, a replay segment and a feedback.
  async unsupported() {
    await Sentry.startSpan({ name: 'conformance page work', op: 'task' }, async () => {
      for (let i = 0; i < 20; i++) document.body.append(`row ${i} `)
      const until = Date.now() + 200
      while (Date.now() < until) Math.sqrt(Math.random())
    })
    const id = Sentry.captureMessage('conformance beside unsupported items', 'error')
    Sentry.captureFeedback({ message: 'the checkout button does nothing', name: 'Conformance' })
    const replay = Sentry.getReplay()
    await waitFor(() => replay?.getReplayId() !== undefined, 5000)
    await replay?.flush()
    return { event: [id] }
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
