// Conformance driver for a real wasm application: sdk-rust/examples/wasm-app, packaged by
// `wasm-pack build --target web` into sdk-rust/target/wasm-app-pkg, imported by a page in
// headless Debian Chromium (playwright-core).
//
//   SENTRY_TEST_DSN=http://<key>@127.0.0.1:<port>/<project> \
//     node conformance/drivers/rust-wasm-app/run.mjs app
//
// The page is served as http://localhost:<port>/ while the DSN names 127.0.0.1, so every
// envelope is a cross-origin `fetch`. Scenario `app`: start the SDK, a failed checkout twice
// (one call site: one issue), flush, then a panic. On wasm32 a panic aborts the module after
// the SDK's hook started the request with the panic event and the `crashed` session, so the
// driver waits until every envelope request has been answered instead of calling back in.
// Prints one JSON line: {"sdk":{"package","version"},"scenario","event_ids","groups"}.
import { readdir, readFile } from 'node:fs/promises'
import { extname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { servePage, withChromium } from '../page-host.mjs'

/** Budget for the last envelope requests after the panic. */
const SETTLE_MS = 15_000

if (process.argv[2] !== 'app') throw new Error('usage: run.mjs app')
const dsn = process.env.SENTRY_TEST_DSN
if (!dsn) throw new Error('SENTRY_TEST_DSN is not set')

const repo = new URL('../../../', import.meta.url)
const pkgDir = fileURLToPath(new URL('sdk-rust/target/wasm-app-pkg/', repo))
const manifest = await readFile(new URL('sdk-rust/Cargo.toml', repo), 'utf8')
const version = /^version = "([^"]+)"/m.exec(manifest)?.[1] ?? 'unknown'

const page = `<!doctype html>
<meta charset="utf-8">
<title>wasm-app</title>
<link rel="icon" href="data:,">
<script type="module">
  import init, { start, checkout, flush, crash } from './pkg/ingest_wasm_app.js'
  await init()
  window.__run = async (dsn) => {
    start(dsn)
    const errors = [checkout(402), checkout(402)]
    if (!(await flush())) throw new Error('flush timed out')
    let panicked = false
    try {
      crash(7)
    } catch {
      panicked = true
    }
    return { errors, panicked }
  }
  window.__ready = true
</script>
`

const TYPES = { '.js': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm' }
/** The page and every file wasm-pack wrote (module, .wasm, snippets). */
const files = new Map([['/', { type: 'text/html; charset=utf-8', body: Buffer.from(page) }]])
for (const entry of await readdir(pkgDir, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile()) continue
  const path = join(entry.parentPath, entry.name)
  const type = TYPES[extname(path)]
  if (type === undefined) continue
  files.set(`/pkg/${path.slice(pkgDir.length)}`, { type, body: await readFile(path) })
}

const host = await servePage(files)
try {
  await withChromium('rust-wasm-app-', async (context) => {
    const tab = await context.newPage()
    const problems = []
    let inFlight = 0
    const isEnvelope = (req) => req.url().includes('/envelope/') && req.method() === 'POST'
    tab.on('request', (req) => {
      if (isEnvelope(req)) inFlight += 1
    })
    // `response` rather than `requestfinished`: the SDK reads only status and headers, never
    // the bodies, so these requests never count as finished.
    tab.on('response', (res) => {
      if (isEnvelope(res.request())) inFlight -= 1
    })
    tab.on('requestfailed', (req) => {
      if (isEnvelope(req)) inFlight -= 1
      problems.push(`request failed: ${req.method()} ${req.url()}: ${req.failure()?.errorText}`)
    })
    // The panic's abort may show up as a console error; expected, so it goes to stderr for
    // diagnosis only.
    tab.on('console', (msg) => {
      if (msg.type() === 'error') process.stderr.write(`console error: ${msg.text()}\n`)
    })
    await tab.goto(`${host.origin}/`)
    await tab.waitForFunction(() => window.__ready === true, undefined, { timeout: 10_000 })
    const result = await tab.evaluate((d) => window.__run(d), dsn)
    if (!result.panicked) throw new Error('crash() returned instead of aborting')
    const deadline = Date.now() + SETTLE_MS
    while (inFlight > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    if (inFlight > 0) problems.push(`${inFlight} envelope requests still open after the panic`)
    if (problems.length > 0) throw new Error(problems.join('\n'))
    const groups = { exception: result.errors }
    const report = {
      sdk: { package: 'ingest-wasm-app (wasm-pack, browser)', version },
      scenario: 'app',
      event_ids: result.errors,
      groups,
    }
    process.stdout.write(`${JSON.stringify(report)}\n`)
  })
} finally {
  host.close()
}
