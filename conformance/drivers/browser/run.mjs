// Conformance driver for the stock browser SDK (@sentry/browser 11, and 10 as sentry-browser-10).
//
//   SENTRY_TEST_DSN=http://<key>@127.0.0.1:<port>/<project> \
//     node conformance/drivers/browser/run.mjs <scenario> [--sdk <package>] [--release <r>] [--user <id>]
//
// Bundles entry.mjs with esbuild against the chosen SDK, serves it from a loopback static
// server on another origin than the ingest server (http://localhost:<port>, as a site would be),
// opens it in headless Debian Chromium through playwright-core and runs the scenario in the
// page (entry.mjs lists them: grouping, crash, ok, ratelimit, unsupported). Prints one JSON
// line: {"sdk":{"package","version"},"scenario","event_ids","groups"[,"release"]}.
// Exit code 0 only if the SDK reports a complete flush.
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { servePage, withChromium } from '../page-host.mjs'

const USAGE = 'usage: run.mjs <scenario> [--sdk <package>] [--release <r>] [--user <id>]'
const PACKAGES = ['@sentry/browser', 'sentry-browser-10']

function parseArgs(argv) {
  const args = { sdk: '@sentry/browser' }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    const option = ['--sdk', '--release', '--user'].find((o) => arg === o)
    if (option !== undefined) args[option.slice(2)] = argv[++i]
    else if (arg.startsWith('--sdk=')) args.sdk = arg.slice('--sdk='.length)
    else if (args.scenario === undefined) args.scenario = arg
    else throw new Error(`unexpected argument ${arg}\n${USAGE}`)
  }
  if (!PACKAGES.includes(args.sdk)) {
    throw new Error(`unknown SDK package ${args.sdk}; one of ${PACKAGES}`)
  }
  if (args.scenario === undefined) throw new Error(USAGE)
  return args
}

const { sdk, scenario, release, user } = parseArgs(process.argv.slice(2))
const dsn = process.env.SENTRY_TEST_DSN
if (!dsn) throw new Error('SENTRY_TEST_DSN is not set')

const bundled = await build({
  entryPoints: [fileURLToPath(new URL('./entry.mjs', import.meta.url))],
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2020',
  write: false,
  logLevel: 'silent',
  alias: sdk === '@sentry/browser' ? {} : { '@sentry/browser': sdk },
})
const bundle = bundled.outputFiles[0].text
const page =
  '<!doctype html><meta charset="utf-8"><title>browser driver</title><script src="/bundle.js"></script>'

// Document-Policy lets the SDK's profiler use the JS Self-Profiling API, as its docs ask.
const html = {
  type: 'text/html; charset=utf-8',
  body: Buffer.from(page),
  headers: { 'document-policy': 'js-profiling' },
}
const host = await servePage(
  new Map([
    ['/', html],
    ['/index.html', html],
    ['/bundle.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(bundle) }],
  ]),
)

let exitCode = 1
try {
  await withChromium('browser-driver-', async (context) => {
    const tab = await context.newPage()
    const problems = []
    tab.on('pageerror', (err) => {
      if (!String(err).includes('conformance uncaught')) problems.push(String(err))
    })
    const query = new URLSearchParams({ dsn, scenario })
    if (release !== undefined) query.set('release', release)
    if (user !== undefined) query.set('user', user)
    // `localhost` while the server is `127.0.0.1`: a different origin, so ingest is cross-origin.
    await tab.goto(`${host.origin}/index.html?${query}`)
    await tab.waitForFunction(() => window.__ready === true, undefined, { timeout: 10_000 })
    const result = await tab.evaluate((name) => window.__run(name), scenario)
    // Leaving the page: the SDK sends its client reports now.
    await tab.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true })
      document.dispatchEvent(new Event('visibilitychange'))
    })
    await tab.waitForTimeout(300)
    if (problems.length > 0) throw new Error(`page errors: ${problems.join('; ')}`)
    const report = {
      sdk: { package: sdk, version: result.version },
      scenario,
      event_ids: Object.values(result.groups).flat(),
      groups: result.groups,
      ...(release === undefined ? {} : { release }),
    }
    process.stdout.write(`${JSON.stringify(report)}\n`)
    exitCode = result.flushed ? 0 : 1
  })
} finally {
  host.close()
}
process.exitCode = exitCode
