// Conformance driver for the Go app on Echo 5 (../go-web/main.go, built into .cache/drivers/go-web)
// with the stock sentry-go integration.
//
//   SENTRY_TEST_DSN=http://<key>@127.0.0.1:<port>/<project> \
//     node conformance/drivers/go-echo/run.mjs <scenario>
//
// Starts the app, sends it the scenario's requests and prints the report line (../web-app.mjs).
import { fileURLToPath } from 'node:url'
import { driveApp, parseAppArgs } from '../web-app.mjs'

const { scenario } = parseAppArgs(process.argv.slice(2), ['sentry-go'])
await driveApp({
  scenario,
  command: [
    fileURLToPath(new URL('../../../.cache/drivers/go-web/conformance-go-web', import.meta.url)),
    'echo',
  ],
})
