// Conformance driver for Koa with the stock @sentry/node integration (11).
//
//   SENTRY_TEST_DSN=http://<key>@127.0.0.1:<port>/<project> \
//     node conformance/drivers/koa/run.mjs <scenario> [--sdk <package>]
//
// Starts app.mjs as @sentry/node documents (`node --import <instrument file> app.mjs`), sends
// it the scenario's requests and prints the report line (../web-app.mjs).
import { fileURLToPath } from 'node:url'
import { driveApp, parseAppArgs } from '../web-app.mjs'

const { sdk, scenario } = parseAppArgs(process.argv.slice(2), ['@sentry/node'])
await driveApp({
  scenario,
  cwd: fileURLToPath(new URL('.', import.meta.url)),
  command: [process.execPath, '--import', '../express/instrument.mjs', 'app.mjs'],
  env: { CONFORMANCE_SENTRY_PACKAGE: sdk },
})
