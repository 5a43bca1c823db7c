import type { Frame } from '../event/types.ts'

/**
 * Paths of third-party and runtime code (protocol.md §8.5 "default in-app rules"): package
 * managers' install folders, runtime internals and CDNs. Both `/` and `\` separators.
 */
const LIBRARY_PATHS: readonly RegExp[] = [
  /[\\/]node_modules[\\/]/,
  /[\\/](?:site|dist)-packages[\\/]/,
  /[\\/]lib[\\/]python\d[\d.]*[\\/]/,
  /[\\/]vendor[\\/]/,
  /[\\/]go[\\/]pkg[\\/]mod[\\/]/,
  /[\\/]\.cargo[\\/](?:registry|git)[\\/]/,
  /[\\/]rustc[\\/]/,
  /^\/(?:usr\/)?lib\//,
  /^\/System\/Library\//,
  /^node:/,
  /^https?:\/\/(?:unpkg\.com|cdn\.jsdelivr\.net|cdnjs\.cloudflare\.com)\//,
]

/** The rules as one alternation: one regex run per path instead of eleven (same matches). */
const LIBRARY_PATH = new RegExp(LIBRARY_PATHS.map((re) => re.source).join('|'))

/** Rust standard library functions, including trait impls written `<core::… as …>::…`. */
const LIBRARY_FUNCTION = /^<?(?:std|core|alloc)::/

/** JVM runtime, the Sentry SDK itself and the most common frameworks. */
const LIBRARY_MODULE =
  /^(?:io\.sentry|java|javax|jdk|sun|com\.sun|kotlin|kotlinx|org\.springframework|org\.apache)\./

/** Guesses from paths and names whether a frame is application code; true unless it matches. */
export function looksInApp(frame: Frame): boolean {
  for (const path of [frame.abs_path, frame.filename, frame.package]) {
    if (path !== undefined && LIBRARY_PATH.test(path)) return false
  }
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
 * by {@link isInApp}. Either way never an installed dependency (below), whatever its flag. Only
 * the culprit reads it: grouping keeps {@link isInApp}, so the issues events already have are
 * not split.
 */
export function culpritInApp(frames: readonly Frame[]): (frame: Frame) => boolean {
  const app = frames.some((f) => f.in_app === true) ? (f: Frame) => f.in_app === true : isInApp
  return (f) => app(f) && !installedDependency(f)
}

/**
 * Paths that are a dependency whatever an SDK says: a crate from Cargo's registry or git
 * checkouts, Rust's standard library, a system library, an npm package, a Go module. The stock
 * Rust SDK marks every frame outside std, core and its own core crate `in_app`, its panic hook
 * (`sentry_panic::…`) and anyhow's frames included, so they named the issue. Not Python's
 * `site-packages`: an application may be installed there and say so with `in_app_include`.
 */
const DEPENDENCY_PATH =
  /[\\/]\.cargo[\\/](?:registry|git)[\\/]|[\\/]rustc[\\/]|^\/(?:usr\/)?lib\/|[\\/]node_modules[\\/]|[\\/]go[\\/]pkg[\\/]mod[\\/]/

/** Whether a frame's file or package is an installed dependency ({@link DEPENDENCY_PATH}). */
export function installedDependency(frame: {
  abs_path?: unknown
  filename?: unknown
  package?: unknown
}): boolean {
  for (const path of [frame.abs_path, frame.filename, frame.package])
    if (typeof path === 'string' && DEPENDENCY_PATH.test(path)) return true
  return false
}
