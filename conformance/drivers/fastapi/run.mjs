// Conformance driver for the fastapi app (app.py) with the stock sentry-sdk, in conformance/.venv-web.
//
//   SENTRY_TEST_DSN=http://<key>@127.0.0.1:<port>/<project> \
//     node conformance/drivers/fastapi/run.mjs <scenario>
//
// Starts the app, sends it the scenario's requests and prints the report line (../web-app.mjs).
import { fileURLToPath } from 'node:url'
import { driveApp, parseAppArgs } from '../web-app.mjs'

const { scenario } = parseAppArgs(process.argv.slice(2), ['sentry-sdk'])
await driveApp({
  scenario,
  cwd: fileURLToPath(new URL('.', import.meta.url)),
  command: [fileURLToPath(new URL('../../.venv-web/bin/python', import.meta.url)), 'app.py'],
})
