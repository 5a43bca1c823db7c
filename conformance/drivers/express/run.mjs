// Conformance driver for Express with the stock @sentry/node integration (8–11).
//
//   SENTRY_TEST_DSN=http://<key>@127.0.0.1:<port>/<project> \
//     node conformance/drivers/express/run.mjs <scenario> [--sdk <package>]
//
// Starts app.mjs as @sentry/node documents (`node --import ./instrument.mjs app.mjs`; the
// `late-init` scenario imports Express first), sends it the scenario's requests and prints the
// report line (../web-app.mjs). @sentry/node 8 runs Express 4 (its Express instrumentation
// predates Express 5); the others Express 5.
import { fileURLToPath } from 'node:url'
import { driveApp, parseAppArgs } from '../web-app.mjs'

const SDKS = ['@sentry/node', 'sentry-node-10', 'sentry-node-9', 'sentry-node-8']
const { sdk, scenario } = parseAppArgs(process.argv.slice(2), SDKS)
const here = fileURLToPath(new URL('.', import.meta.url))
const late = scenario === 'late-init'
await driveApp({
  scenario,
  cwd: here,
  command: [process.execPath, ...(late ? [] : ['--import', './instrument.mjs']), 'app.mjs'],
  env: {
    CONFORMANCE_SENTRY_PACKAGE: sdk,
    CONFORMANCE_EXPRESS_PACKAGE: sdk === 'sentry-node-8' ? 'express-4' : 'express',
  },
})
