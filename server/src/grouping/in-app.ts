import type { Frame } from '../event/types.ts'

/**
 * Paths that are an installed dependency whatever an SDK says: an npm package, a Go module, a
 * crate from Cargo's registry or git checkouts, Rust's standard library, a system library. The
 * stock Rust SDK marks every frame outside std, core and its own core crate `in_app`, its panic
 * hook (`sentry_panic::…`) and anyhow's frames included, so they named the issue
 * ({@link culpritInApp}). Not Python's `site-packages`: an application may be installed there and
 * say so with `in_app_include`.
 */
const DEPENDENCY_PATHS: readonly RegExp[] = [
  // Also at the start of a relative path (`node_modules/zone.js/…`, as Angular's source maps name
  // their packages), not inside a longer name (`my_node_modules/`).
  /(?:^|[\\/])node_modules[\\/]/,
  /[\\/]go[\\/]pkg[\\/]mod[\\/]/,
  /[\\/]\.cargo[\\/](?:registry|git)[\\/]/,
  /[\\/]rustc[\\/]/,
  /^\/(?:usr\/)?lib\//,
]

/**
 * Paths of third-party and runtime code (protocol.md §8.5 "default in-app rules"): the
 * dependencies above, and what an SDK may know better (Python's install folders, vendored
 * code), runtime internals and CDNs. Both `/` and `\` separators.
 */
const LIBRARY_PATHS: readonly RegExp[] = [
  ...DEPENDENCY_PATHS,
  /[\\/](?:site|dist)-packages[\\/]/,
  /[\\/]lib[\\/]python\d[\d.]*[\\/]/,
  /[\\/]vendor[\\/]/,
  /^\/System\/Library\//,
  /^node:/,
  /^https?:\/\/(?:unpkg\.com|cdn\.jsdelivr\.net|cdnjs\.cloudflare\.com)\//,
]

/** Each list as one alternation: one regex run per path instead of one per rule (same matches). */
const anyOf = (list: readonly RegExp[]) => new RegExp(list.map((re) => re.source).join('|'))
const LIBRARY_PATH = anyOf(LIBRARY_PATHS)
const DEPENDENCY_PATH = anyOf(DEPENDENCY_PATHS)

/** Rust standard library functions, including trait impls written `<core::… as …>::…`. */
const LIBRARY_FUNCTION = /^<?(?:std|core|alloc)::/

/** JVM runtime, the Sentry SDK itself and the most common frameworks. */
const LIBRARY_MODULE =
  /^(?:io\.sentry|java|javax|jdk|sun|com\.sun|kotlin|kotlinx|org\.springframework|org\.apache)\./

/** Guesses from paths and names whether a frame is application code; true unless it matches. */
export function looksInApp(frame: Frame): boolean {
  if (pathMatches(frame, LIBRARY_PATH)) return false
  if (frame.function !== undefined && LIBRARY_FUNCTION.test(frame.function)) return false
  return frame.module === undefined || !LIBRARY_MODULE.test(frame.module)
}

/**
 * Whether the frame is application code: the SDK's `in_app` when set, else the guess. Guessing
 * per frame (not only when no frame has the flag) also covers SDKs that mark only library frames.
 */
export function isInApp(frame: Frame): boolean {
  return frame.in_app ?? looksInApp(frame)
}

/**
 * Which frames of a stack the culprit is read from: when the SDK marked any frame `in_app: true`
 * (sentry-java's `inAppIncludes`, sentry-python's `in_app_include`), it knows the app, and a
 * frame it left unmarked is library code (a logging appender, a parser); otherwise each frame
 * by {@link isInApp}. Either way never an installed dependency, whatever its flag. Only
 * the culprit reads it: grouping keeps {@link isInApp}, so the issues events already have are
 * not split.
 */
export function culpritInApp(frames: readonly Frame[]): (frame: Frame) => boolean {
  const app = frames.some((f) => f.in_app === true) ? (f: Frame) => f.in_app === true : isInApp
  return (f) => app(f) && !installedDependency(f)
}

/** A frame as stored or normalised: the fields that say where its code lives. */
type FramePaths = { abs_path?: unknown; filename?: unknown; package?: unknown }

/** Whether the frame's file or package path matches `re`. */
function pathMatches(frame: FramePaths, re: RegExp): boolean {
  for (const path of [frame.abs_path, frame.filename, frame.package])
    if (typeof path === 'string' && re.test(path)) return true
  return false
}

/** Whether a frame's file or package is an installed dependency ({@link DEPENDENCY_PATHS}). */
export const installedDependency = (frame: FramePaths): boolean =>
  pathMatches(frame, DEPENDENCY_PATH)
