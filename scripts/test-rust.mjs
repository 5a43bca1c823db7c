// The Rust SDK suite (sdk-rust/), run by `npm test` after vitest. Plain Node, no dependencies.
//
//   node scripts/test-rust.mjs                  fmt, clippy, cargo test (with doctests), cargo doc,
//                                              cargo publish --dry-run, wasm32 build + Node run
//   node scripts/test-rust.mjs --build <what>   build only, for the conformance tests; prints
//                                              one JSON line {"path": ...} (what: conformance,
//                                              wasm (Node), wasm-web (browser), wasm-app (the
//                                              example app, by wasm-pack), rust-stock, or all)
//
// Native steps use the rustup toolchain (~/.cargo/bin). wasm32-unknown-unknown has no prebuilt
// std here (rustup cannot download targets), so the wasm builds are the recipe of
// docs/rust-sdk.md ("Building for wasm32 on Debian"), whose marked shell blocks this script runs
// verbatim: Debian's rustc-web/cargo-web, std built from source (rust-web-src), linked by the
// matching lld (the setup block runs when a package is missing and running as root). So the
// documented commands are what CI builds with, and cannot drift. wasm-bindgen-cli, pinned to
// the version in Cargo.lock, and wasm-pack (the version of the doc's tools block) are built once
// into .cache/. Every check counts as one test, cargo's own tests count one each; the totals go
// to artifacts/results/rust.json.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const repoRoot = fileURLToPath(new URL('..', import.meta.url))
const sdkDir = join(repoRoot, 'sdk-rust')
const targetDir = join(sdkDir, 'target')
/** Debian's toolchain gets its own target dir: its rustc differs from rustup's. */
const wasmTargetDir = join(targetDir, 'wasm-toolchain')
const wasmPkgDir = join(targetDir, 'wasm-pkg')
const wasmWebPkgDir = join(targetDir, 'wasm-web-pkg')
const cacheDir = join(repoRoot, '.cache')
const resultsFile = join(repoRoot, 'artifacts', 'results', 'rust.json')
const stockDriverDir = join(repoRoot, 'conformance', 'drivers', 'rust-stock')
/** The example application crate (a cdylib depending on the SDK with `web`). */
const wasmAppDir = join(sdkDir, 'examples', 'wasm-app')
const wasmAppPkgDir = join(targetDir, 'wasm-app-pkg')
const rustDoc = join(repoRoot, 'docs', 'rust-sdk.md')

/**
 * The shell block of docs/rust-sdk.md after `<!-- <marker>: ... -->`, exactly as written there.
 * A missing block throws: the doc and this script change together.
 */
function docBlock(marker) {
  const doc = readFileSync(rustDoc, 'utf8')
  const at = doc.indexOf(`<!-- ${marker}:`)
  const m = at < 0 ? null : /-->\s*\n```sh\n([\s\S]*?)\n```/.exec(doc.slice(at))
  if (m?.[1] === undefined) throw new Error(`docs/rust-sdk.md has no \`${marker}\` sh block`)
  return m[1]
}

/** wasm-pack from crates.io (the npm package downloads a binary, which cannot work here). */
const WASM_PACK_VERSION = /cargo install wasm-pack --version (\S+)/.exec(
  docBlock('wasm tools'),
)?.[1]

/** The Debian packages the setup block installs by name (lld's name depends on rustc's LLVM). */
const WASM_PACKAGES = [...docBlock('wasm32 setup').matchAll(/^apt-get install -y ([^"$\n]+)$/gm)]
  .flatMap((m) => m[1].trim().split(/\s+/))
  .filter((pkg) => !pkg.startsWith('-'))

/** Runs a block of docs/rust-sdk.md verbatim with bash (-e: the first failing command fails). */
function runDocBlock(marker, { env = {}, log = live } = {}) {
  return run('bash', ['-euo', 'pipefail', '-c', docBlock(marker)], { cwd: repoRoot, env, log })
}

/** rustup's cargo when installed, else whatever `cargo` is on PATH. */
function nativeCargo() {
  const rustup = join(homedir(), '.cargo', 'bin', 'cargo')
  return existsSync(rustup) ? rustup : 'cargo'
}

/** Where a step's output goes: straight through, or into a buffer printed later. */
const live = { write: (text) => process.stdout.write(text) }
function buffered() {
  const parts = []
  return { write: (text) => parts.push(String(text)), text: () => parts.join('') }
}

/**
 * Runs a command, its stdout and stderr going to `log` (default: this process's stdout);
 * resolves to the exit code and, with `capture`, the stdout text.
 */
function run(cmd, args, { cwd = sdkDir, env = {}, capture = false, log = live } = {}) {
  log.write(`\n── ${[cmd, ...args].join(' ')}\n`)
  return new Promise((resolve) => {
    const direct = log === live && !capture
    const child = spawn(cmd, args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', direct ? 'inherit' : 'pipe', log === live ? 'inherit' : 'pipe'],
    })
    let out = ''
    child.stdout?.on('data', (chunk) => {
      if (capture) out += chunk
      log.write(chunk)
    })
    child.stderr?.on('data', (chunk) => log.write(chunk))
    child.on('error', (error) => {
      log.write(`${cmd}: ${error.message}\n`)
      resolve({ code: 127, out })
    })
    child.on('close', (code) => resolve({ code: code ?? 1, out }))
  })
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0

function dpkgInstalled(pkg) {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format syntax
  const r = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' })
  return r.status === 0 && r.stdout.includes('install ok installed')
}

/** The LLVM major version of Debian's rustc (its lld must match), or undefined. */
function debianLlvmMajor() {
  const r = spawnSync('/usr/bin/rustc', ['-vV'], { encoding: 'utf8' })
  return r.status === 0 ? /LLVM version: (\d+)/.exec(r.stdout)?.[1] : undefined
}

/** Makes sure Debian's wasm-capable toolchain is installed; returns its settings or an error. */
async function wasmToolchain() {
  const missing = () => {
    const llvm = debianLlvmMajor()
    const wanted = [...WASM_PACKAGES, ...(llvm === undefined ? [] : [`lld-${llvm}`])]
    return wanted.filter((pkg) => !dpkgInstalled(pkg))
  }
  let absent = missing()
  if (absent.length > 0 && isRoot()) {
    await runDocBlock('wasm32 setup', { env: { DEBIAN_FRONTEND: 'noninteractive' } })
    absent = missing()
  }
  if (absent.length > 0 || debianLlvmMajor() === undefined) {
    return {
      error: `missing Debian packages: ${absent.join(' ') || 'rustc-web'} (see docs/rust-sdk.md)`,
    }
  }
  return {}
}

/**
 * The wasm32 examples and how wasm-bindgen packages each: `node` (CommonJS glue for Node) and
 * `web` (an ES module a browser page imports, fetching the .wasm next to it).
 */
const WASM_VARIANTS = {
  node: { example: 'wasm_node', target: 'nodejs', outDir: wasmPkgDir },
  web: { example: 'wasm_web', target: 'web', outDir: wasmWebPkgDir },
}

/**
 * Builds the wasm examples for wasm32 with the doc's build block (both at once; a second call
 * finds them built); resolves to the .wasm path of `example` or an error.
 */
async function buildWasm(example, log) {
  const { code } = await runDocBlock('wasm32 build', {
    env: { CARGO_TARGET_DIR: wasmTargetDir },
    log,
  })
  if (code !== 0) return { error: `wasm32 build failed (exit ${code})` }
  return {
    path: join(wasmTargetDir, 'wasm32-unknown-unknown', 'debug', 'examples', `${example}.wasm`),
  }
}

/** The wasm-bindgen version locked in sdk-rust/Cargo.lock. */
function lockedWasmBindgen() {
  const lock = readFileSync(join(sdkDir, 'Cargo.lock'), 'utf8')
  return /\[\[package\]\]\nname = "wasm-bindgen"\nversion = "([^"]+)"/.exec(lock)?.[1]
}

/**
 * wasm-bindgen-cli of the locked version, built into .cache/ once. A debug build: it compiles
 * in a third of the time of a release build and still processes the module in seconds.
 */
async function wasmBindgenCli(log) {
  const version = lockedWasmBindgen()
  if (version === undefined) return { error: 'wasm-bindgen is not in sdk-rust/Cargo.lock' }
  const root = join(cacheDir, `wasm-bindgen-cli-${version}`)
  const bin = join(root, 'bin', 'wasm-bindgen')
  if (existsSync(bin)) return { path: bin }
  const install = ['install', 'wasm-bindgen-cli', '--version', version, '--root', root, '--debug']
  const opts = { cwd: repoRoot, log }
  // --locked first; a registry mirror lagging behind the CLI's lockfile needs a fresh resolve.
  let { code } = await run(nativeCargo(), [...install, '--locked'], opts)
  if (code !== 0) ({ code } = await run(nativeCargo(), install, opts))
  return code === 0 && existsSync(bin)
    ? { path: bin }
    : { error: 'wasm-bindgen-cli install failed' }
}

/**
 * wasm32 build + wasm-bindgen of one variant (`node`: --target nodejs into target/wasm-pkg,
 * `web`: --target web into target/wasm-web-pkg). The build and the CLI install run side by
 * side (both spend much of a cold run waiting on the registry).
 */
async function buildWasmPkg(variant, log = live) {
  const { example, target, outDir } = WASM_VARIANTS[variant]
  const tc = await wasmToolchain()
  if (tc.error) return { step: 'wasm32-build', ...tc }
  const [wasm, cli] = await Promise.all([buildWasm(example, log), wasmBindgenCli(log)])
  if (wasm.error) return { step: 'wasm32-build', ...wasm }
  if (cli.error) return { step: 'wasm-bindgen', ...cli }
  const args = ['--target', target, '--out-dir', outDir, wasm.path]
  const { code } = await run(cli.path, args, { log })
  if (code !== 0) return { step: 'wasm-bindgen', error: `wasm-bindgen failed (exit ${code})` }
  // The repository's package.json says "type": "module"; the nodejs glue is CommonJS.
  if (target === 'nodejs') writeFileSync(join(outDir, 'package.json'), '{ "type": "commonjs" }\n')
  return { path: outDir }
}

/** wasm-pack, built once into .cache/ (a debug build, like wasm-bindgen-cli). */
async function wasmPackCli(log) {
  if (WASM_PACK_VERSION === undefined) return { error: 'no wasm-pack version in docs/rust-sdk.md' }
  const root = join(cacheDir, `wasm-pack-${WASM_PACK_VERSION}`)
  const bin = join(root, 'bin', 'wasm-pack')
  if (existsSync(bin)) return { path: bin }
  const install = ['install', 'wasm-pack', '--version', WASM_PACK_VERSION, '--root', root]
  const { code } = await run(nativeCargo(), [...install, '--locked', '--debug'], {
    cwd: repoRoot,
    log,
  })
  return code === 0 && existsSync(bin) ? { path: bin } : { error: 'wasm-pack install failed' }
}

/**
 * `wasm-pack build --target web` of examples/wasm-app into target/wasm-app-pkg: the doc's
 * wasm-pack block, with wasm-pack and the wasm-bindgen CLI of the locked version on PATH (it
 * would otherwise download one). wasm-opt is off in the app's metadata for the same reason.
 */
async function buildWasmApp(log = live) {
  const tc = await wasmToolchain()
  if (tc.error) return { step: 'wasm-pack', ...tc }
  const [pack, cli] = await Promise.all([wasmPackCli(log), wasmBindgenCli(log)])
  if (pack.error) return { step: 'wasm-pack', ...pack }
  if (cli.error) return { step: 'wasm-pack', ...cli }
  const env = {
    CARGO_TARGET_DIR: join(wasmTargetDir, 'wasm-app'),
    PATH: `${join(pack.path, '..')}:${join(cli.path, '..')}:${process.env.PATH ?? ''}`,
  }
  const { code } = await runDocBlock('wasm-pack build', { env, log })
  if (code !== 0) return { step: 'wasm-pack', error: `wasm-pack build failed (exit ${code})` }
  return { path: wasmAppPkgDir }
}

async function buildConformance() {
  const args = ['build', '--all-features', '--example', 'conformance']
  const { code } = await run(nativeCargo(), args)
  if (code !== 0) return { error: `cargo build failed (exit ${code})` }
  return { path: join(targetDir, 'debug', 'examples', 'conformance') }
}

async function buildStockDriver() {
  const { code } = await run(nativeCargo(), ['build'], {
    cwd: stockDriverDir,
    env: { CARGO_TARGET_DIR: join(targetDir, 'drivers') },
  })
  if (code !== 0) return { error: `cargo build failed (exit ${code})` }
  return { path: join(targetDir, 'drivers', 'debug', 'rust-stock-driver') }
}

/** Every program the conformance suite runs (so vitest's hooks find them built). */
async function buildAll() {
  const wasmNode = () => buildWasmPkg('node')
  const wasmWeb = () => buildWasmPkg('web')
  const wasmApp = () => buildWasmApp()
  for (const build of [buildConformance, buildStockDriver, wasmNode, wasmWeb, wasmApp]) {
    const result = await build()
    if (result.error) return result
  }
  return { path: targetDir }
}

/** `test result: ok. 38 passed; 0 failed; ...` lines summed up. */
function cargoCounts(output) {
  let passed = 0
  let failed = 0
  for (const m of output.matchAll(/^test result: \w+\. (\d+) passed; (\d+) failed;/gm)) {
    passed += Number(m[1])
    failed += Number(m[2])
  }
  return { passed, failed }
}

async function testAll() {
  const started = Date.now()
  const checks = []
  const check = (name, ok, why) => {
    checks.push({ name, ok })
    if (!ok) process.stdout.write(`\n✗ ${name}${why ? `: ${why}` : ''}\n`)
  }
  const cargo = nativeCargo()
  // The wasm side needs no native artifact: build it meanwhile, printing its log afterwards.
  await wasmToolchain()
  const wasmLog = buffered()
  const wasmPkg = buildWasmPkg('node', wasmLog)
  check('cargo fmt --check', (await run(cargo, ['fmt', '--check'])).code === 0)
  const appManifest = join(wasmAppDir, 'Cargo.toml')
  const appFmt = await run(cargo, ['fmt', '--check', '--manifest-path', appManifest])
  check('cargo fmt --check (wasm-app)', appFmt.code === 0)
  const clippy = ['clippy', '--all-targets', '--all-features', '--', '-D', 'warnings']
  check('cargo clippy', (await run(cargo, clippy)).code === 0)

  const test = await run(cargo, ['test', '--all-features', '--no-fail-fast'], { capture: true })
  const counts = cargoCounts(test.out)
  if (test.code !== 0 && counts.failed === 0) {
    check('cargo test', false, `exit ${test.code} without a failed test (build error?)`)
  }

  // Broken intra-doc links and missing docs fail, as they would on docs.rs.
  const doc = ['doc', '--no-deps', '--all-features']
  const docEnv = { RUSTDOCFLAGS: '-D warnings' }
  check('cargo doc', (await run(cargo, doc, { env: docEnv })).code === 0)
  // Packages the crate as crates.io would get it and builds that package. --allow-dirty: a
  // work tree with uncommitted files is normal while developing.
  const publish = ['publish', '--dry-run', '--allow-dirty']
  check('cargo publish --dry-run', (await run(cargo, publish)).code === 0)

  const pkg = await wasmPkg
  process.stdout.write(wasmLog.text())
  check('wasm32 build', pkg.step !== 'wasm32-build', pkg.step === 'wasm32-build' && pkg.error)
  check('wasm-bindgen', !pkg.error, pkg.step === 'wasm-bindgen' && pkg.error)
  const nodeRun = pkg.error
    ? { code: 1 }
    : await run(process.execPath, ['tests/wasm_node.mjs', wasmPkgDir])
  check('wasm in node', nodeRun.code === 0, pkg.error ? 'not built' : undefined)

  const passed = counts.passed + checks.filter((c) => c.ok).length
  const failed = counts.failed + checks.filter((c) => !c.ok).length
  mkdirSync(join(repoRoot, 'artifacts', 'results'), { recursive: true })
  writeFileSync(resultsFile, `${JSON.stringify({ passed, failed })}\n`)
  const secs = Math.round((Date.now() - started) / 1000)
  process.stdout.write(`\nrust SDK suite (${secs} s):\n`)
  process.stdout.write(`rust: ${passed} passed, ${failed} failed\n`)
  return failed === 0 ? 0 : 1
}

async function main(argv) {
  if (argv[0] === '--build') {
    const builders = {
      conformance: buildConformance,
      wasm: () => buildWasmPkg('node'),
      'wasm-web': () => buildWasmPkg('web'),
      'wasm-app': () => buildWasmApp(),
      'rust-stock': buildStockDriver,
      all: buildAll,
    }
    const build = builders[argv[1]]
    if (build === undefined) {
      process.stderr.write(`usage: test-rust.mjs --build <${Object.keys(builders).join('|')}>\n`)
      return 2
    }
    const result = await build()
    if (result.error) {
      process.stderr.write(`${result.error}\n`)
      return 1
    }
    process.stdout.write(`${JSON.stringify({ path: result.path })}\n`)
    return 0
  }
  if (argv.length > 0) {
    process.stderr.write('usage: test-rust.mjs [--build <what>]\n')
    return 2
  }
  return testAll()
}

process.exitCode = await main(process.argv.slice(2))
