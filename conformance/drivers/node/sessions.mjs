// Conformance driver for release health with the stock Node SDK (@sentry/node), unmodified.
//
//   SENTRY_TEST_DSN=http://<key>@127.0.0.1:<port>/<project> \
//     node conformance/drivers/node/sessions.mjs <scenario> --release <r> [--user <id>] [--sdk <pkg>]
//
// Scenarios (each process is one process session, as the SDK tracks it by default):
//   ok      the process does its work and ends its session cleanly (exited)
//   error   captures a handled exception, then ends cleanly (an errored session)
//   crash   throws an uncaught exception: the SDK reports it and marks the session crashed;
//           the process then exits with code 1, as the SDK's default handler does
//   http    an http server in request mode: 3 requests, one capturing an exception; the SDK
//           sends them as a `sessions` aggregate (2 exited, 1 errored)
// Prints one JSON line {"sdk":{"package","version"},"scenario","release"} before finishing.

import { flushAndReport, parseArgs, report, scenarioOf, startSdk } from './common.mjs'

const USAGE = 'usage: sessions.mjs <scenario> --release <r> [--user <id>] [--sdk <package>]'

const args = parseArgs(process.argv.slice(2), USAGE, {
  options: ['release', 'user'],
  required: ['release'],
})
const Sentry = await startSdk(args.sdk, { release: args.release })
if (args.user !== undefined) Sentry.setUser({ id: args.user })

const fields = { scenario: args.scenario, release: args.release }

/** Ends the process session after pending events updated it (sdks.md §1.10). */
async function endCleanly() {
  await Sentry.flush(5000)
  Sentry.endSession()
  await flushAndReport(Sentry, args.sdk, fields)
}

async function http() {
  const { createServer, get } = await import('node:http')
  const server = createServer((req, res) => {
    if (req.url === '/fail') Sentry.captureException(new Error('conformance request failed'))
    res.end('ok')
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address()
  for (const path of ['/a', '/fail', '/b']) {
    await new Promise((resolve, reject) => {
      get(`http://127.0.0.1:${port}${path}`, (res) => {
        res.resume()
        res.on('end', resolve)
      }).on('error', reject)
    })
  }
  server.close()
  // Request sessions are aggregated per minute and sent on flush.
  await flushAndReport(Sentry, args.sdk, fields)
}

const scenarios = {
  ok: endCleanly,
  async error() {
    Sentry.captureException(new Error('conformance handled error'))
    await endCleanly()
  },
  async crash() {
    report(Sentry, args.sdk, fields)
    setTimeout(() => {
      throw new Error('conformance crash')
    })
  },
  http,
}

await scenarioOf(scenarios, args.scenario)()
