/**
 * Starts the real ingest server as a child process, the way it runs in production: the
 * conformance suite must see the same entry point, config loading and shutdown path.
 */
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { execa } from 'execa'
import { cleanEnv } from './env.ts'
import { repoRoot } from './paths.ts'

/** How long the server may take to print its ready line. */
const READY_TIMEOUT_MS = 20_000

/** A running server and what the harness needs to drive it. */
export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:40123`. */
  url: string
  /** Bearer token for the management API. */
  adminToken: string
  /** The temporary DATA_DIR, removed by `stop()`. */
  dataDir: string
  /** Every stdout and stderr line so far (stderr lines are prefixed `stderr: `). */
  logs: string[]
  /** The server's process id. */
  pid: number
  /** Sends a signal without waiting (SIGTERM to watch a graceful stop). */
  signal(signal: NodeJS.Signals): void
  /** Resolves when the process ended, with its exit code or the signal that ended it. */
  exited: Promise<{ exitCode: number | undefined; signal: string | undefined }>
  /** SIGKILL (a node dying mid-run), wait for exit, remove the data dir; `stop()` is then a no-op. */
  kill(): Promise<void>
  /** SIGTERM, wait for exit, remove the data dir; throws if the server logged an error. */
  stop(): Promise<void>
}

/** Options for {@link startServer}. */
export interface StartOptions {
  /** Extra environment variables (after the defaults, so they can override them). */
  env?: Record<string, string>
  /**
   * `source` runs `server/src/main.ts` through tsx (the vitest suite, no build needed); `dist`
   * runs the built `server/dist/main.js` as production does (the conformance runner).
   */
  entry?: 'source' | 'dist'
  /** With `entry: 'dist'`: the build to run instead of `server/dist` (a copy elsewhere). */
  distDir?: string
  /** How long to wait for the ready line (default {@link READY_TIMEOUT_MS}). */
  readyTimeoutMs?: number
}

/** The ready line `main.ts` prints once it accepts requests. */
function readyUrl(line: string): string | undefined {
  const record = parseLogLine(line)
  if (record === undefined || record['msg'] !== 'listening') return undefined
  const url = record['url']
  return typeof url === 'string' ? url : undefined
}

/** A stdout line as a JSON object, or undefined when it is not one. */
function parseLogLine(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{')) return undefined
  try {
    const value: unknown = JSON.parse(line)
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

/** Log lines at pino level >= 50 (error, fatal): a conformance run must not produce any. */
export function errorLines(logs: readonly string[]): string[] {
  return logs.filter((line) => {
    const level = parseLogLine(line)?.['level']
    return typeof level === 'number' && level >= 50
  })
}

/**
 * Starts `server/src/main.ts` on an ephemeral port with a fresh data dir and admin token and
 * resolves once it printed `{"msg":"listening","url":...}`.
 */
export async function startServer(opts: StartOptions = {}): Promise<RunningServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'ingest-conformance-'))
  const adminToken = randomBytes(24).toString('hex')
  const env = cleanEnv({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    INGEST_ADMIN_TOKEN: adminToken,
    // No load balancer to drain: stop at once (the drain itself is tested on its own).
    SHUTDOWN_DRAIN_MS: '0',
    ...opts.env,
  })
  const args =
    opts.entry === 'dist'
      ? [join(opts.distDir ?? 'server/dist', 'main.js')]
      : ['--import', 'tsx', '--import', './scripts/tsx-in-worker-threads.mjs', 'server/src/main.ts']
  const child = execa(process.execPath, args, {
    cwd: repoRoot,
    env,
    extendEnv: false,
    buffer: false,
    reject: false,
    cleanup: true,
    forceKillAfterDelay: 5_000,
    stdin: 'ignore',
  })
  const logs: string[] = []
  const stderrLines = createInterface({ input: child.stderr })
  stderrLines.on('line', (line) => logs.push(`stderr: ${line}`))
  const stdoutLines = createInterface({ input: child.stdout })

  const url = await new Promise<string>((resolve, reject) => {
    let settled = false
    const fail = (why: string): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      child.kill('SIGKILL')
      reject(
        new Error(`ingest server did not start: ${why}\n--- server output ---\n${logs.join('\n')}`),
      )
    }
    const readyMs = opts.readyTimeoutMs ?? READY_TIMEOUT_MS
    const timer = setTimeout(() => fail(`no ready line within ${readyMs} ms`), readyMs)
    stdoutLines.on('line', (line) => {
      logs.push(line)
      const ready = readyUrl(line)
      if (ready !== undefined && !settled) {
        settled = true
        clearTimeout(timer)
        resolve(ready)
      }
    })
    void child.then((result) => {
      fail(
        `exited early (exit code ${result.exitCode ?? 'none'}, signal ${result.signal ?? 'none'})`,
      )
    })
  }).catch(async (error: unknown) => {
    await child
    await rm(dataDir, { recursive: true, force: true })
    throw error
  })

  const exited = child.then((r) => ({ exitCode: r.exitCode, signal: r.signal }))
  let stopped: Promise<void> | undefined
  const kill = (): Promise<void> => {
    stopped ??= (async () => {
      child.kill('SIGKILL')
      await child
      await rm(dataDir, { recursive: true, force: true })
    })()
    return stopped
  }
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      child.kill('SIGTERM')
      const result = await child
      await rm(dataDir, { recursive: true, force: true })
      const problems = errorLines(logs)
      if (result.signal !== undefined && result.signal !== 'SIGTERM') {
        problems.push(`server was killed by ${result.signal} (did not exit within 5 s of SIGTERM?)`)
      } else if (result.exitCode !== undefined && result.exitCode !== 0) {
        problems.push(`server exited with code ${result.exitCode} after SIGTERM`)
      }
      if (problems.length > 0) {
        throw new Error(`ingest server reported problems:\n${problems.join('\n')}`)
      }
    })()
    return stopped
  }
  return {
    url,
    adminToken,
    dataDir,
    logs,
    pid: child.pid ?? 0,
    signal: (sig) => {
      child.kill(sig)
    },
    exited,
    kill,
    stop,
  }
}
