// Conformance driver for the first-party Rust SDK on wasm32-unknown-unknown (feature `web`),
// loaded in Node from the wasm-bindgen output of sdk-rust/examples/wasm_node.rs.
//
//   SENTRY_TEST_DSN=http://<key>@127.0.0.1:<port>/<project> \
//     node conformance/drivers/rust-wasm/run.mjs <error|grouping>
//
// The SDK sends through the global `fetch`; `run` resolves after it awaited its last requests.
// Prints one JSON line: {"sdk":{"package","version"},"scenario","event_ids","groups"}.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

const scenario = process.argv[2]
if (scenario === undefined) throw new Error('usage: run.mjs <error|grouping>')
const dsn = process.env.SENTRY_TEST_DSN
if (!dsn) throw new Error('SENTRY_TEST_DSN is not set')

const pkgDir = new URL('../../../sdk-rust/target/wasm-pkg/', import.meta.url)
const wasm = createRequire(import.meta.url)(new URL('wasm_node.js', pkgDir).pathname)
const manifest = readFileSync(new URL('../../../sdk-rust/Cargo.toml', import.meta.url), 'utf8')
const version = /^version = "([^"]+)"/m.exec(manifest)?.[1] ?? 'unknown'

const groups = JSON.parse(await wasm.run(dsn, scenario))
const report = {
  sdk: { package: 'ingest-sdk (wasm32)', version },
  scenario,
  event_ids: Object.values(groups).flat(),
  groups,
}
process.stdout.write(`${JSON.stringify(report)}\n`)
