// The app's instrument file, as @sentry/node 8+ documents it: loaded before anything else with
// `node --import ./instrument.mjs app.mjs`, so the SDK can instrument http and Express as they
// are imported. The SDK is the npm name in CONFORMANCE_SENTRY_PACKAGE (@sentry/node or an alias
// sentry-node-N); everything else is the SDK's defaults plus what a real app sets.
const Sentry = await import(process.env.CONFORMANCE_SENTRY_PACKAGE || '@sentry/node')

Sentry.init({
  dsn: process.env.SENTRY_TEST_DSN,
  release: process.env.CONFORMANCE_RELEASE,
  environment: 'test',
  // No performance monitoring (the seed's setting): the SDK still names the error's
  // transaction after the route.
  tracesSampleRate: 0,
  sendDefaultPii: true,
  // Only tells the harness which event ids the SDK sends; the event is returned unchanged.
  beforeSend(event) {
    process.stdout.write(`${JSON.stringify({ sent: event.event_id })}\n`)
    return event
  },
})
