/**
 * Polling instead of sleeping: the server digests inline, but SDKs send from background
 * queues, so tests wait for an observable state with a deadline and never for a fixed time.
 */

/** Options for {@link waitFor}. */
export interface WaitOptions {
  /** Give up after this many milliseconds (default 5 000). */
  timeout?: number
  /** Pause between attempts in milliseconds (default 50). */
  interval?: number
  /** What was awaited, for the timeout error. */
  message?: string
}

/**
 * Calls `fn` until it resolves to something other than `undefined`, `null` or `false`, and
 * returns that. A throwing `fn` (e.g. a failed `expect`) counts as "not yet"; on timeout the
 * last thrown error is re-thrown with the wait's message in front, so assertion diffs survive.
 */
export async function waitFor<T>(
  fn: () => Promise<T | undefined | false | null>,
  opts: WaitOptions = {},
): Promise<T> {
  const timeout = opts.timeout ?? 5_000
  const interval = opts.interval ?? 50
  const what = opts.message ?? 'condition'
  const deadline = Date.now() + timeout
  let lastError: unknown
  let attempts = 0
  for (;;) {
    attempts++
    try {
      const value = await fn()
      if (value !== undefined && value !== null && value !== false) return value
      lastError = undefined
    } catch (error) {
      lastError = error
    }
    if (Date.now() >= deadline) break
    await new Promise((resolve) => setTimeout(resolve, interval))
  }
  const prefix = `waitFor: ${what} not met after ${timeout} ms (${attempts} attempts)`
  if (lastError instanceof Error) {
    lastError.message = `${prefix}: ${lastError.message}`
    throw lastError
  }
  throw new Error(lastError === undefined ? prefix : `${prefix}: ${String(lastError)}`)
}
