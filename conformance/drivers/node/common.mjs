// What every Node driver does around its scenarios: read the arguments, load and initialise the
// stock SDK chosen with --sdk, and print the one-line JSON report the harness reads.

/** The npm names the stock SDK is installed under: latest and one alias per older major. */
export const PACKAGES = [
  '@sentry/node',
  'sentry-node-7',
  'sentry-node-8',
  'sentry-node-9',
  'sentry-node-10',
]

/**
 * Parses `<scenario> [--sdk <package>] [--<option> <value>]…` for the named options; throws the
 * usage line when the scenario or a `required` option is missing.
 */
export function parseArgs(argv, usage, { options = [], required = [] } = {}) {
  const args = { sdk: process.env.SENTRY_TEST_SDK || '@sentry/node' }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--sdk') args.sdk = argv[++i]
    else if (arg.startsWith('--sdk=')) args.sdk = arg.slice('--sdk='.length)
    else if (arg.startsWith('--') && options.includes(arg.slice(2))) args[arg.slice(2)] = argv[++i]
    else if (args.scenario === undefined) args.scenario = arg
    else throw new Error(`unexpected argument ${arg}\n${usage}`)
  }
  if (!PACKAGES.includes(args.sdk)) {
    throw new Error(`unknown SDK package ${args.sdk}; one of ${PACKAGES}`)
  }
  if (args.scenario === undefined || required.some((name) => args[name] === undefined)) {
    throw new Error(usage)
  }
  return args
}

/** The scenario function of that name; throws listing the known ones. */
export function scenarioOf(scenarios, name) {
  const run = scenarios[name]
  if (run === undefined) throw new Error(`unknown scenario ${name}: ${Object.keys(scenarios)}`)
  return run
}

/**
 * Loads the SDK package and initialises it with `$SENTRY_TEST_DSN`, environment `test`, no
 * tracing unless `options` say otherwise; resolves with the SDK module.
 */
export async function startSdk(sdk, options) {
  const dsn = process.env.SENTRY_TEST_DSN
  if (!dsn) throw new Error('SENTRY_TEST_DSN is not set')
  const Sentry = await import(sdk)
  Sentry.init({ dsn, environment: 'test', tracesSampleRate: 0, ...options })
  return Sentry
}

/** Prints the report line: `{"sdk":{"package","version"}, …fields}`. */
export function report(Sentry, sdk, fields) {
  const line = { sdk: { package: sdk, version: Sentry.SDK_VERSION }, ...fields }
  process.stdout.write(`${JSON.stringify(line)}\n`)
}

/** Flushes (5 s), prints the report and exits 0 only if the SDK reports a complete flush. */
export async function flushAndReport(Sentry, sdk, fields) {
  const flushed = await Sentry.flush(5000)
  report(Sentry, sdk, fields)
  process.exitCode = flushed ? 0 : 1
}

/** The report fields of an event scenario: its groups and all their ids as `event_ids`. */
export const eventFields = (scenario, groups) => ({
  scenario,
  event_ids: Object.values(groups).flat(),
  groups,
})
