/**
 * Builds the Rust programs the conformance suite drives (sdk-rust's examples, natively and for
 * wasm32) with `scripts/test-rust.mjs --build`, so a test file can run on its own; cargo caches
 * under sdk-rust/target and wasm-bindgen-cli under .cache/, so a warm build takes seconds.
 */
import { execa } from 'execa'
import { type Driver, loadDriver } from './drivers.ts'
import { repoRoot } from './paths.ts'

/** A cold build compiles the SDK, its dependencies and, for wasm32, std itself. */
export const RUST_BUILD_TIMEOUT = 15 * 60_000

/** What `scripts/test-rust.mjs --build` can build. */
export type RustBuild = 'conformance' | 'wasm' | 'wasm-web' | 'wasm-app' | 'rust-stock'

/** Builds `what` and loads driver `name` (a path under conformance/drivers/), failing loudly. */
export async function buildRustDriver(what: RustBuild, name: string): Promise<Driver> {
  const result = await execa(process.execPath, ['scripts/test-rust.mjs', '--build', what], {
    cwd: repoRoot,
    reject: false,
    all: true,
    stdin: 'ignore',
  })
  if (result.exitCode !== 0) {
    throw new Error(`scripts/test-rust.mjs --build ${what} failed:\n${result.all}`)
  }
  const driver = loadDriver(name)
  if (driver.missing !== undefined) throw new Error(`${name}: ${driver.missing}`)
  return driver
}
