// Conformance driver for the first-party Rust SDK on wasm32-unknown-unknown (feature `web`) in a
// browser: the wasm-bindgen `--target web` output of sdk-rust/examples/wasm_web.rs, imported by a
// page in headless Debian Chromium (playwright-core).
//
//   SENTRY_TEST_DSN=http://<key>@127.0.0.1:<port>/<project> \
//     node conformance/drivers/rust-wasm/browser/run.mjs <error|grouping|ratelimit>
//
// The page and the module are served by a loopback static server and opened as
// http://localhost:<port>/ while the DSN names 127.0.0.1: every envelope is a cross-origin
// `fetch` (with a CORS preflight), as from a real site. The exported `run(dsn, scenario)`
// initialises the SDK, captures, and resolves after `close_async` awaited the last requests.
// Prints one JSON line: {"sdk":{"package","version"},"scenario","event_ids","groups"}. Fails on a
// page error or a failed request (a CORS refusal shows as one).
import { readFile } from 'node:fs/promises'
import { servePage, withChromium } from '../../page-host.mjs'

const SCENARIOS = ['error', 'grouping', 'ratelimit']

const scenario = process.argv[2]
if (!SCENARIOS.includes(scenario ?? '')) {
  throw new Error(`usage: run.mjs <${SCENARIOS.join('|')}>`)
}
const dsn = process.env.SENTRY_TEST_DSN
if (!dsn) throw new Error('SENTRY_TEST_DSN is not set')

const repo = new URL('../../../../', import.meta.url)
const pkgDir = new URL('sdk-rust/target/wasm-web-pkg/', repo)
const manifest = await readFile(new URL('sdk-rust/Cargo.toml', repo), 'utf8')
const version = /^version = "([^"]+)"/m.exec(manifest)?.[1] ?? 'unknown'

const page = `<!doctype html>
<meta charset="utf-8">
<title>rust-wasm browser driver</title>
<link rel="icon" href="data:,">
<script type="module">
  import init, { run } from './pkg/wasm_web.js'
  await init()
  window.__run = (dsn, scenario) => run(dsn, scenario)
  window.__ready = true
</script>
`

/** The only paths the static server answers, with their bodies and types. */
const files = new Map([
  ['/', { type: 'text/html; charset=utf-8', body: Buffer.from(page) }],
  [
    '/pkg/wasm_web.js',
    {
      type: 'text/javascript; charset=utf-8',
      body: await readFile(new URL('wasm_web.js', pkgDir)),
    },
  ],
  [
    '/pkg/wasm_web_bg.wasm',
    { type: 'application/wasm', body: await readFile(new URL('wasm_web_bg.wasm', pkgDir)) },
  ],
])

const host = await servePage(files)
try {
  await withChromium('rust-wasm-browser-', async (context) => {
    const tab = await context.newPage()
    const problems = []
    tab.on('pageerror', (err) => problems.push(`page error: ${err}`))
    tab.on('requestfailed', (req) => {
      problems.push(`request failed: ${req.method()} ${req.url()}: ${req.failure()?.errorText}`)
    })
    // Console errors include expected ones (Chromium logs the 429 of the ratelimit scenario);
    // they go to stderr for diagnosis only.
    tab.on('console', (msg) => {
      if (msg.type() === 'error' || msg.type() === 'warning') {
        process.stderr.write(`console ${msg.type()}: ${msg.text()}\n`)
      }
    })
    // `localhost` while the server is `127.0.0.1`: a different origin, so ingest is cross-origin.
    await tab.goto(`${host.origin}/`)
    await tab.waitForFunction(() => window.__ready === true, undefined, { timeout: 10_000 })
    const groups = JSON.parse(await tab.evaluate(([d, s]) => window.__run(d, s), [dsn, scenario]))
    if (problems.length > 0) throw new Error(problems.join('\n'))
    const report = {
      sdk: { package: 'ingest-sdk (wasm32, browser)', version },
      scenario,
      event_ids: Object.values(groups).flat(),
      groups,
    }
    process.stdout.write(`${JSON.stringify(report)}\n`)
  })
} finally {
  host.close()
}
