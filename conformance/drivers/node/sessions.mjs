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

const USAGE = 'usage: sessions.mjs <scenario> --release <r> [--user <id>] [--sdk <package>]'
const PACKAGES = ['@sentry/node', 'sentry-node-8', 'sentry-node-9', 'sentry-node-10']

function parseArgs(argv) {
  const args = { sdk: process.env.SENTRY_TEST_SDK || '@sentry/node' }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--sdk') args.sdk = argv[++i]
    else if (arg === '--release') args.release = argv[++i]
    else if (arg === '--user') args.user = argv[++i]
    else if (args.scenario === undefined) args.scenario = arg
    else throw new Error(`unexpected argument ${arg}\n${USAGE}`)
  }
  if (!PACKAGES.includes(args.sdk)) throw new Error(`unknown SDK package ${args.sdk}`)
  if (args.scenario === undefined || args.release === undefined) throw new Error(USAGE)
  return args
}

const args = parseArgs(process.argv.slice(2))
const dsn = process.env.SENTRY_TEST_DSN
if (!dsn) throw new Error('SENTRY_TEST_DSN is not set')

const Sentry = await import(args.sdk)
Sentry.init({ dsn, release: args.release, environment: 'test', tracesSampleRate: 0 })
if (args.user !== undefined) Sentry.setUser({ id: args.user })

const report = () =>
  process.stdout.write(
    `${JSON.stringify({ sdk: { package: args.sdk, version: Sentry.SDK_VERSION }, scenario: args.scenario, release: args.release })}\n`,
  )

/** Ends the process session after pending events updated it (sdks.md §1.10). */
async function endCleanly() {
  await Sentry.flush(5000)
  Sentry.endSession()
  const flushed = await Sentry.flush(5000)
  report()
  process.exitCode = flushed ? 0 : 1
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
  const flushed = await Sentry.flush(5000)
  report()
  process.exitCode = flushed ? 0 : 1
}

const scenarios = {
  ok: endCleanly,
  async error() {
    Sentry.captureException(new Error('conformance handled error'))
    await endCleanly()
  },
  async crash() {
    report()
    setTimeout(() => {
      throw new Error('conformance crash')
    })
  },
  http,
}

const run = scenarios[args.scenario]
if (run === undefined)
  throw new Error(`unknown scenario ${args.scenario}: ${Object.keys(scenarios)}`)
await run()
