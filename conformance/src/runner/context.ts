/**
 * What a scenario gets to work with for one cell: the target's APIs, a fresh project reached
 * through the recording proxy, the row's driver, and an evidence log. Scenarios throw (an
 * `expect` or an error with the driver's output) to fail; everything they sent and read back
 * is already in the evidence by then.
 */
import { expect } from 'vitest'
import { Api, type Project } from '../harness/api.ts'
import {
  type Driver,
  DriverFailure,
  type DriverOutput,
  driverOutputSchema,
  runDriver,
} from '../harness/drivers.ts'
import { HealthApi, runProgram } from '../harness/health-crons.ts'
import type { RecordingProxy } from '../harness/recording-proxy.ts'
import type { Row } from './matrix.ts'
import type { Evidence } from './report.ts'

/** The target server as the runner reaches it. */
export interface Target {
  url: string
  token: string
  proxy: RecordingProxy
  /** How long scenarios wait for the server to show what the SDK sent. */
  readBackMs: number
}

/** Per-run state shared by all cells: memoised driver runs and named locks. */
export class RunState {
  readonly #shared = new Map<string, Promise<unknown>>()
  readonly #locks = new Map<string, Promise<unknown>>()

  /** `fn` once per key for the whole run; later callers get the same promise. */
  shared<T>(key: string, fn: () => Promise<T>): Promise<T> {
    let p = this.#shared.get(key) as Promise<T> | undefined
    if (p === undefined) {
      p = fn()
      this.#shared.set(key, p)
    }
    return p
  }

  /** Runs `fn` after every earlier holder of the lock `name` finished. */
  exclusive<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const before = this.#locks.get(name) ?? Promise.resolve()
    const mine = before.then(fn, fn)
    this.#locks.set(
      name,
      mine.catch(() => undefined),
    )
    return mine
  }
}

/** A project created for a cell, with its DSN pointed at the recording proxy. */
export interface CellProject extends Project {
  /** The server's own DSN (the one SDKs would use without the proxy). */
  directDsn: string
}

/** The context of one cell. */
export class CellContext {
  readonly api: Api
  readonly health: HealthApi
  readonly expect = expect
  readonly evidence: Evidence = { projects: [], requests: [], readBack: [] }
  readonly target: Target
  readonly row: Row
  readonly driver: Driver
  readonly state: RunState
  /**
   * What a passing cell's reader should know (e.g. what the SDK lacks when initialised late):
   * becomes the pass cell's `reason` in the report. Set with {@link CellContext.say}.
   */
  summary: string | undefined

  constructor(target: Target, row: Row, driver: Driver, state: RunState) {
    this.target = target
    this.row = row
    this.driver = driver
    this.state = state
    this.api = new Api(target.url, target.token)
    this.health = new HealthApi(target.url, target.token)
  }

  /** How long to wait for the server to show something (see {@link READ_BACK_MS}). */
  get readBackMs(): number {
    return this.target.readBackMs
  }

  /** Creates a project for this cell (names carry the row so the target's UI stays readable). */
  async createProject(name: string): Promise<CellProject> {
    const project = await this.api.createProject(`conformance ${this.row.id} ${name}`)
    return {
      ...project,
      directDsn: project.dsn,
      dsn: this.target.proxy.dsnFor(project.dsn),
    }
  }

  /** Adds a project's proxied requests to this cell's evidence when the cell ends. */
  track(project: { id: number }): void {
    if (!this.evidence.projects.includes(project.id)) this.evidence.projects.push(project.id)
  }

  /** Sets the cell's one-line summary for the report (shown for passing cells too). */
  say(text: string): void {
    this.summary = text
  }

  /** Records something read back from the server. */
  note<T>(label: string, value: T): T {
    this.evidence.readBack.push({ label, value })
    return value
  }

  /** The driver's program of that kind (`sessions`, `crons`, `quota`); throws when it has none. */
  program(kind: string): string {
    const program = this.driver.programs?.[kind]
    if (program === undefined) throw new Error(`driver ${this.driver.name} has no ${kind} program`)
    return program
  }

  /** `--sdk <variant>` for multi-SDK drivers, nothing otherwise. */
  sdkArgs(): string[] {
    return this.row.sdk === undefined ? [] : ['--sdk', this.row.sdk]
  }

  /** Runs an event scenario of the driver's main program or of `kind`'s program. */
  async runEvents(
    scenario: string,
    dsn: string,
    kind?: string,
    timeout = 120_000,
  ): Promise<DriverOutput> {
    // A driver without a separate program of that kind runs the scenario in its main command
    // when it declares it there (the Rust drivers: one binary for every scenario).
    const separate =
      kind !== undefined &&
      (this.driver.programs?.[kind] !== undefined || !this.driver.scenarios.includes(scenario))
    const driver = separate
      ? { ...this.driver, command: [this.driver.command[0] ?? 'node', this.program(kind)] }
      : this.driver
    let report: DriverOutput
    try {
      report = await runDriver(driver, {
        scenario,
        dsn,
        timeout,
        ...(this.row.sdk === undefined ? {} : { sdk: this.row.sdk }),
      })
    } catch (error) {
      if (!(error instanceof DriverFailure)) throw error
      const app = driverOutputSchema.safeParse(error.report).data?.app
      if (app === undefined) throw error
      this.#noteApp(app, true)
      if (app.flushed) throw error
      // The report's one-line reason says what the SDK's transport did, not only the exit code.
      throw new DriverFailure(`${unfinishedFlush(app)}\n${error.message}`, error.report)
    }
    this.evidence.sdk = report.sdk
    this.#noteApp(report.app, false)
    return report
  }

  /**
   * Keeps a web app's account of its flush and of its SDK's HTTP requests in the evidence:
   * always when the run failed, otherwise when the app traced more than that it flushed (the
   * timings of passing runs are what a failing one is compared with).
   */
  #noteApp(app: DriverOutput['app'], failed: boolean): void {
    if (app === undefined) return
    if (!failed && app.flush_ms === undefined && app.sdk_requests === undefined) return
    this.note("the app's flush and its SDK's HTTP requests, as the app's transport saw them", app)
  }

  /** Runs a program of `kind` with `args` (plus `--sdk`); `exitCodes` that count as success. */
  async runProgram(
    kind: string,
    args: string[],
    dsn: string,
    exitCodes: number[] = [0],
  ): Promise<Record<string, unknown>> {
    const [runtime] = this.driver.command
    const result = await runProgram({
      driver: { ...this.driver, command: [runtime ?? 'node'] },
      program: this.program(kind),
      args: [...args, ...(this.driver.sdks.length > 1 ? this.sdkArgs() : [])],
      dsn,
      exitCodes,
      timeout: 120_000,
    })
    const sdk = result['sdk']
    if (typeof sdk === 'object' && sdk !== null) {
      const { package: pkg, version } = sdk as Record<string, unknown>
      if (typeof pkg === 'string' && typeof version === 'string') {
        this.evidence.sdk = { package: pkg, version }
      }
    }
    return result
  }
}

/**
 * One line on a web app's flush that did not complete: how long it waited and each HTTP request
 * of its SDK (`200 after 4 ms`, `no answer after 5020 ms (written)`, `failed after …: error`).
 */
function unfinishedFlush(app: NonNullable<DriverOutput['app']>): string {
  const waited = app.flush_ms === undefined ? '' : ` after ${app.flush_ms} ms`
  const requests = app.sdk_requests
  if (requests === undefined) return `the app's SDK flush did not complete${waited}`
  const each = requests.map((r) => {
    if (r.pending === true) {
      const written = typeof r['wrote_ms'] === 'number' ? 'written' : 'not written'
      return `no answer after ${r.ms} ms (${written})`
    }
    if (r.error !== undefined) return `failed after ${r.ms} ms: ${r.error}`
    return `${r.status ?? '?'} after ${r.ms} ms`
  })
  return `the app's SDK flush did not complete${waited}; its ${requests.length} HTTP request(s): ${each.join('; ') || 'none'}`
}

/**
 * How long scenarios wait by default for the server to show what the SDK sent: generous, as a
 * busy machine can take many times the idle latency (the back-off scenario took 7 s idle and
 * hit a 40 s limit beside other work).
 */
export const READ_BACK_MS = 60_000
