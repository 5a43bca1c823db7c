// What the web-framework drivers share: start a real app (Express, Flask, FastAPI, …) that uses
// its SDK's stock integration, send it the requests of a scenario as a browser or API client
// would, and print the one-line report the harness reads. The app is any program that speaks
// this small protocol on its standard streams:
//
//   app → stdout, one JSON object a line (other lines are ignored):
//     {"listening": <port>}                 once, when it accepts requests on 127.0.0.1:<port>
//     {"sent": "<event id>"}                from the SDK's before-send hook, per event
//     {"flushed": <bool>, "sdk": {"package", "version"}}   after it was asked to flush
//                                           (optionally `"flush_ms"`: how long the flush took)
//     {"sdk_request": {…}}                  optional: one HTTP request of the SDK as the app's
//                                           transport saw it (method, path, at, start_ms since
//                                           the app started, conn_ms and reused, wrote_ms, ms
//                                           until the answer's headers, status or error, and
//                                           `pending` for one still waiting when it exits)
//   harness → stdin: the line `flush` — flush the SDK (session aggregates included) and exit.
//
// The report line carries what the app said about its flush and its SDK's requests (`app`), and
// each SDK request is also written to stderr as it is reported, readable, so that a failed or
// killed run's output says what the SDK's transport did.
//
// The app reads SENTRY_TEST_DSN, CONFORMANCE_RELEASE and CONFORMANCE_INIT (`early`: the SDK
// initialised before the framework is imported, as documented; `late`: after it).
import { spawn } from 'node:child_process'
import { request } from 'node:http'
import { createInterface } from 'node:readline'

/** The release every app reports (each cell has a project of its own). */
export const RELEASE = 'conformance-app@1.0.0'

/**
 * The requests of each scenario. `late-init` sends what `request-errors` sends to an app whose
 * SDK was initialised after the framework. `expect` is the status the route answers with.
 */
const SCENARIOS = {
  'request-errors': {
    init: 'early',
    requests: [
      { path: '/orders/17?expand=items', user: 'customer-17', event: 'route' },
      { path: '/orders/42?expand=items', user: 'customer-42', event: 'route' },
    ],
  },
  'late-init': {
    init: 'late',
    requests: [
      { path: '/orders/17?expand=items', user: 'customer-17', event: 'route' },
      { path: '/orders/42?expand=items', user: 'customer-42', event: 'route' },
    ],
  },
  // Request-mode sessions: three healthy requests and one whose error goes unhandled.
  'request-sessions': {
    init: 'early',
    requests: [
      { path: '/health', user: 'customer-1' },
      { path: '/health', user: 'customer-2' },
      { path: '/orders/99', user: 'customer-3', event: 'crash' },
      { path: '/health', user: 'customer-4' },
    ],
  },
}

/** The scenario ids the framework drivers run. */
export const APP_SCENARIOS = Object.keys(SCENARIOS)

/**
 * One GET on a connection of its own (`Connection: close`: servers that close a connection
 * after an unhandled error must not break the next request); resolves with the status.
 */
function get(port, path, headers) {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, headers, agent: false, timeout: 30_000 },
      (res) => {
        res.resume()
        res.on('end', () => resolve({ status: res.statusCode }))
        res.on('error', reject)
      },
    )
    req.on('timeout', () => req.destroy(new Error('no answer within 30 s')))
    req.on('error', reject)
    req.end()
  })
}

/** One `sdk_request` line of the app as a readable line (for stderr and failure output). */
export function describeSdkRequest(r) {
  const ms = (v) => `${typeof v === 'number' ? v : '?'} ms`
  const parts = [`sdk request: ${r.method ?? '?'} ${r.path ?? '?'} at +${ms(r.start_ms)}`]
  parts.push(
    r.conn_ms === undefined
      ? 'no connection yet'
      : `connection after ${ms(r.conn_ms)} (${r.reused === true ? 'kept-alive, reused' : 'new'})`,
  )
  parts.push(r.wrote_ms === undefined ? 'not written yet' : `written after ${ms(r.wrote_ms)}`)
  if (r.write_error !== undefined) parts.push(`write error ${r.write_error}`)
  if (r.pending === true) parts.push(`no answer after ${ms(r.ms)}, still waiting as the app exits`)
  else if (r.error !== undefined) parts.push(`failed after ${ms(r.ms)}: ${r.error}`)
  else parts.push(`${r.status} after ${ms(r.ms)}`)
  return parts.join(', ')
}

/** Waits until `check()` is true (polling), or throws `what` after `ms`. */
async function until(check, ms, what) {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/**
 * Runs `scenario` against the app started by `command` (`[program, ...args]`, with `env` added
 * to a clean copy of this environment) and prints the report line. `sdkPackage` names the SDK
 * in the report when the app does not. Exit code 0 only when the app reports a complete flush.
 */
export async function driveApp({ scenario, command, env = {}, cwd }) {
  const plan = SCENARIOS[scenario]
  if (plan === undefined) throw new Error(`unknown scenario ${scenario}: ${APP_SCENARIOS}`)
  const dsn = process.env.SENTRY_TEST_DSN
  if (!dsn) throw new Error('SENTRY_TEST_DSN is not set')
  const [program, ...args] = command
  const child = spawn(program, args, {
    cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: {
      ...process.env,
      SENTRY_TEST_DSN: dsn,
      CONFORMANCE_RELEASE: RELEASE,
      CONFORMANCE_INIT: plan.init,
      ...env,
    },
  })
  const state = { port: undefined, sent: [], sdkRequests: [], final: undefined, exited: undefined }
  let stderr = ''
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-20_000)
  })
  // `close`, not `exit`: the app's last lines are read by then.
  child.on('close', (code, signal) => {
    state.exited = code ?? signal
  })
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (!line.startsWith('{')) return
    let msg
    try {
      msg = JSON.parse(line)
    } catch {
      return
    }
    if (typeof msg.listening === 'number') state.port = msg.listening
    else if (typeof msg.sent === 'string') state.sent.push(msg.sent.replaceAll('-', ''))
    else if (typeof msg.sdk_request === 'object' && msg.sdk_request !== null) {
      state.sdkRequests.push(msg.sdk_request)
      process.stderr.write(`${describeSdkRequest(msg.sdk_request)}\n`)
    } else if ('flushed' in msg) state.final = msg
  })
  // A condition that also fails fast when the app died before it came true.
  const whileAlive = (check) => () => {
    if (check()) return true
    if (state.exited !== undefined)
      throw new Error(`the app exited early (${state.exited})\n${stderr}`)
    return false
  }
  try {
    await until(
      whileAlive(() => state.port !== undefined),
      60_000,
      'the app to listen',
    )
    const groups = {}
    const statuses = []
    for (const r of plan.requests) {
      const before = state.sent.length
      const headers = {
        'X-Conformance-User': r.user,
        'X-Request-Id': `conformance-${r.user}`,
        Cookie: 'theme=dark',
        'User-Agent': 'conformance-client/1.0',
      }
      const res = await get(state.port, r.path, headers).catch((error) => {
        throw new Error(`GET ${r.path}: ${error}\n--- app stderr ---\n${stderr}`)
      })
      statuses.push(res.status)
      if (r.event !== undefined) {
        await until(
          whileAlive(() => state.sent.length > before),
          30_000,
          `the event of ${r.path}`,
        )
        groups[r.event] = [...(groups[r.event] ?? []), state.sent[state.sent.length - 1]]
      }
    }
    child.stdin.write('flush\n')
    await until(
      whileAlive(() => state.final !== undefined),
      30_000,
      'the app to flush',
    )
    const flushed = state.final.flushed === true
    const flushMs = typeof state.final.flush_ms === 'number' ? state.final.flush_ms : undefined
    const report = {
      sdk: state.final.sdk,
      scenario,
      event_ids: Object.values(groups).flat(),
      groups,
      app: {
        flushed,
        ...(flushMs === undefined ? {} : { flush_ms: flushMs }),
        ...(state.sdkRequests.length === 0 ? {} : { sdk_requests: state.sdkRequests }),
      },
    }
    process.stdout.write(`${JSON.stringify(report)}\n`)
    const flush = `flush: ${flushed ? 'complete' : 'INCOMPLETE'}${flushMs === undefined ? '' : ` after ${flushMs} ms`}`
    process.stderr.write(`statuses ${statuses.join(' ')}\n${flush}\n${stderr}`)
    process.exitCode = flushed ? 0 : 1
  } finally {
    await until(() => state.exited !== undefined, 10_000, 'the app to exit').catch(() => {
      child.kill('SIGKILL')
    })
  }
}

/** Parses `<scenario> [--sdk <package>]`; `sdks` are the accepted packages, first the default. */
export function parseAppArgs(argv, sdks) {
  let sdk = sdks[0]
  let scenario
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === '--sdk') sdk = argv[++i]
    else if (arg.startsWith('--sdk=')) sdk = arg.slice('--sdk='.length)
    else if (scenario === undefined) scenario = arg
    else throw new Error(`unexpected argument ${arg}`)
  }
  if (!sdks.includes(sdk)) throw new Error(`unknown SDK package ${sdk}; one of ${sdks}`)
  if (scenario === undefined) throw new Error('usage: <scenario> [--sdk <package>]')
  return { sdk, scenario }
}
