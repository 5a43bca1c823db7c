// Conformance driver for cron check-ins with the stock Node SDK (@sentry/node), unmodified.
//
//   SENTRY_TEST_DSN=http://<key>@127.0.0.1:<port>/<project> \
//     node conformance/drivers/node/crons.mjs <scenario> --slug <slug> [--sdk <package>]
//
// Scenarios:
//   crontab   withMonitor around a job, crontab schedule */5 in Europe/Berlin, margin 1, max 5
//   interval  captureCheckIn in_progress then ok (duration 1.5 s), every 10 minutes, margin 2
//   hang      captureCheckIn in_progress with max_runtime 1 and never closed (a hung job)
//   fail      withMonitor around a job that throws: the SDK sends an error check-in
// Prints one JSON line {"sdk":{"package","version"},"scenario","slug","check_in_ids":[…]}.

const USAGE = 'usage: crons.mjs <scenario> --slug <slug> [--sdk <package>]'
const PACKAGES = ['@sentry/node', 'sentry-node-8', 'sentry-node-9', 'sentry-node-10']

function parseArgs(argv) {
  const args = { sdk: process.env.SENTRY_TEST_SDK || '@sentry/node' }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--sdk') args.sdk = argv[++i]
    else if (arg === '--slug') args.slug = argv[++i]
    else if (args.scenario === undefined) args.scenario = arg
    else throw new Error(`unexpected argument ${arg}\n${USAGE}`)
  }
  if (!PACKAGES.includes(args.sdk)) throw new Error(`unknown SDK package ${args.sdk}`)
  if (args.scenario === undefined || args.slug === undefined) throw new Error(USAGE)
  return args
}

const args = parseArgs(process.argv.slice(2))
const dsn = process.env.SENTRY_TEST_DSN
if (!dsn) throw new Error('SENTRY_TEST_DSN is not set')

const Sentry = await import(args.sdk)
Sentry.init({ dsn, release: 'crons@1.0.0', environment: 'test', tracesSampleRate: 0 })

const crontab = {
  schedule: { type: 'crontab', value: '*/5 * * * *' },
  checkinMargin: 1,
  maxRuntime: 5,
  timezone: 'Europe/Berlin',
}
const interval = { schedule: { type: 'interval', value: 10, unit: 'minute' }, checkinMargin: 2 }

const scenarios = {
  async crontab() {
    await Sentry.withMonitor(args.slug, async () => new Promise((r) => setTimeout(r, 20)), crontab)
    return []
  },
  async interval() {
    const id = Sentry.captureCheckIn({ monitorSlug: args.slug, status: 'in_progress' }, interval)
    Sentry.captureCheckIn({ checkInId: id, monitorSlug: args.slug, status: 'ok', duration: 1.5 })
    return [id]
  },
  async hang() {
    const config = { ...crontab, maxRuntime: 1 }
    return [Sentry.captureCheckIn({ monitorSlug: args.slug, status: 'in_progress' }, config)]
  },
  async fail() {
    try {
      await Sentry.withMonitor(
        args.slug,
        async () => {
          throw new Error('conformance job failed')
        },
        crontab,
      )
    } catch {
      // withMonitor sent the error check-in and rethrew.
    }
    return []
  },
}

const run = scenarios[args.scenario]
if (run === undefined)
  throw new Error(`unknown scenario ${args.scenario}: ${Object.keys(scenarios)}`)
const ids = await run()
const flushed = await Sentry.flush(5000)
const sdk = { package: args.sdk, version: Sentry.SDK_VERSION }
process.stdout.write(
  `${JSON.stringify({ sdk, scenario: args.scenario, slug: args.slug, check_in_ids: ids })}\n`,
)
process.exitCode = flushed ? 0 : 1
