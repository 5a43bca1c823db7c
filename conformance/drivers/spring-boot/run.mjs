// Conformance driver for the Spring Boot 3 app (src/, built by scripts/setup-drivers.mjs into
// .cache/drivers/spring-boot) with the stock sentry-spring-boot-starter-jakarta.
//
//   SENTRY_TEST_DSN=http://<key>@127.0.0.1:<port>/<project> \
//     node conformance/drivers/spring-boot/run.mjs <scenario>
//
// Starts the app, sends it the scenario's requests and prints the report line (../web-app.mjs).
import { fileURLToPath } from 'node:url'
import { driveApp, parseAppArgs } from '../web-app.mjs'

const { scenario } = parseAppArgs(process.argv.slice(2), [
  'io.sentry:sentry-spring-boot-starter-jakarta',
])
await driveApp({
  scenario,
  command: [
    fileURLToPath(
      new URL('../../../.cache/drivers/spring-boot/conformance-spring-boot', import.meta.url),
    ),
  ],
})
