/**
 * SDK drivers: one program per stock SDK under `conformance/drivers/<name>/`, described by its
 * `driver.json`. The harness runs a driver with a DSN and a scenario and reads back the event
 * ids it captured; a driver whose runtime is missing is skipped with the reason it declares
 * (a failure on CI).
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import { z } from 'zod'
import { cleanEnv } from './env.ts'
import { conformanceRoot, repoRoot } from './paths.ts'

const hex32 = z.string().regex(/^[0-9a-f]{32}$/)

/** `drivers/<name>/driver.json`. */
export const driverSchema = z.strictObject({
  name: z.string(),
  runtime: z.string(),
  description: z.string(),
  /** Program and fixed arguments, relative to the repo root; `node` means this Node binary. */
  command: z.array(z.string()).min(1),
  /** SDK variants the driver can run (its `--sdk` values), first = default. */
  sdks: z.array(z.string()).min(1),
  scenarios: z.array(z.string()),
  /** Files that must exist for the driver to run, with the reason shown when one is missing. */
  needs: z.array(z.strictObject({ file: z.string(), reason: z.string() })),
  /**
   * The driver's other programs by kind (`sessions`, `crons`, `quota`), relative to the repo
   * root and run with the same runtime as `command`; the matrix runner picks them by scenario.
   */
  programs: z.record(z.string(), z.string()).optional(),
  /**
   * The item types the driver's `unsupported` scenario sends that the server counts instead of
   * storing (default: transaction, log, attachment).
   */
  unsupportedItems: z.array(z.string()).optional(),
  /**
   * A web-framework driver's app (`drivers/web-app.mjs` protocol): the framework's name and the
   * transaction its SDK integration names the failing route `/orders/<id>` with; an SDK variant
   * that names it otherwise has its own in `transactionBySdk` (`{order}` stands for the id).
   * `null`: the SDK names no transaction on error events, and the culprit is the crash
   * frame, matching the regular expression `culprit`.
   */
  app: z
    .strictObject({
      framework: z.string(),
      transaction: z.string().nullable(),
      transactionBySdk: z.record(z.string(), z.string()).optional(),
      culprit: z.string().optional(),
    })
    .optional(),
})

/** A driver's description plus whether it can run here. */
export type Driver = z.infer<typeof driverSchema> & {
  /** Why the driver cannot run on this machine, or undefined when it can. */
  missing: string | undefined
}

/**
 * One HTTP request of the SDK as a web app's own transport saw it (`sdk_request` lines of
 * drivers/web-app.mjs's protocol): kept loose, it is evidence, read by people.
 */
export const sdkRequestSchema = z.looseObject({
  method: z.string(),
  path: z.string(),
  /** Milliseconds since the app started, and until the answer's headers (or the error). */
  start_ms: z.number(),
  ms: z.number(),
  status: z.number().optional(),
  error: z.string().optional(),
  /** Still waiting for the answer when the app exited. */
  pending: z.boolean().optional(),
})

/** What every driver prints as its last stdout line. */
export const driverOutputSchema = z.strictObject({
  sdk: z.strictObject({ package: z.string(), version: z.string() }),
  scenario: z.string(),
  event_ids: z.array(hex32),
  /** Expected-issue label (e.g. `exception`, `message`) -> the event ids that belong to it. */
  groups: z.record(z.string(), z.array(hex32)),
  /**
   * A web app's account of its end (drivers/web-app.mjs): whether the SDK's flush completed,
   * how long it took and, where the app traces them, the SDK's HTTP requests.
   */
  app: z
    .strictObject({
      flushed: z.boolean(),
      flush_ms: z.number().optional(),
      sdk_requests: z.array(sdkRequestSchema).optional(),
    })
    .optional(),
})
/** A driver run's result. */
export type DriverOutput = z.infer<typeof driverOutputSchema>

/** Whether this run is on CI (`CI=true` or `CI=1`, as the matrix runner reads it). */
export const onCi = (env: NodeJS.ProcessEnv = process.env): boolean =>
  env['CI'] === 'true' || env['CI'] === '1'

/**
 * Reads `drivers/<name>/driver.json` and checks its needs (synchronously: used at collection).
 * Off CI a driver whose runtime is missing is returned with the reason (its tests are skipped
 * and shown as such); on CI it throws, failing the test file, as the matrix runner fails such a
 * cell: a broken CI image must not turn the suite green by skipping. `root` is where the needed
 * files are looked for (the repository).
 */
export function loadDriver(
  name: string,
  env: NodeJS.ProcessEnv = process.env,
  root: string = repoRoot,
): Driver {
  const path = join(conformanceRoot, 'drivers', name, 'driver.json')
  const driver = driverSchema.parse(JSON.parse(readFileSync(path, 'utf8')))
  const unmet = driver.needs.find((need) => !existsSync(join(root, need.file)))
  if (unmet !== undefined && onCi(env)) {
    throw new Error(`driver ${name}: runtime missing on CI: ${unmet.reason}`)
  }
  return { ...driver, missing: unmet?.reason }
}

/** Options for {@link runDriver}. */
export interface RunOptions {
  scenario: string
  dsn: string
  /** Which of `driver.sdks` to run (passed as `--sdk`); omitted for single-SDK drivers. */
  sdk?: string
  /** Kill the driver after this many milliseconds (default 20 000). */
  timeout?: number
}

/**
 * Runs a driver in a clean environment with `SENTRY_TEST_DSN` set and parses its report.
 * Throws with the driver's output when it fails, times out or prints no valid report.
 */
export async function runDriver(driver: Driver, options: RunOptions): Promise<DriverOutput> {
  const args = [options.scenario, ...(options.sdk === undefined ? [] : ['--sdk', options.sdk])]
  return runForReport(driver, args, options.dsn, options.timeout ?? 20_000, driverOutputSchema)
}

/**
 * A driver run that failed. Its last stdout line, when that is still a valid report (a web app
 * whose flush did not complete prints one and exits 1), is kept for the cell's evidence.
 */
export class DriverFailure extends Error {
  readonly report: unknown
  constructor(message: string, report: unknown) {
    super(message)
    this.name = 'DriverFailure'
    this.report = report
  }
}

/** A driver's last stdout line: where it prints its report. */
const lastLine = (stdout: string): string => stdout.trim().split('\n').at(-1) ?? ''

/** The last stdout line parsed with `schema`, or undefined when it is not such a report. */
function lastReport<S extends z.ZodType>(stdout: string, schema: S): z.output<S> | undefined {
  try {
    const parsed = schema.safeParse(JSON.parse(lastLine(stdout)))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

/**
 * Runs a driver's command plus `args` and parses its last stdout line with `schema`, for drivers
 * whose report has another shape. Throws with the output when it fails or prints no report (a
 * {@link DriverFailure} when it failed, with the report it printed all the same).
 */
export async function runForReport<S extends z.ZodType>(
  driver: Driver,
  args: readonly string[],
  dsn: string,
  timeout: number,
  schema: S,
): Promise<z.output<S>> {
  const [program, ...fixed] = driver.command
  if (program === undefined) throw new Error(`driver ${driver.name} has no command`)
  const all = [...fixed, ...args]
  const { result, output } = await execProgram(program, all, dsn, timeout)
  if (result.failed) {
    throw new DriverFailure(
      `driver ${driver.name} ${all.join(' ')} failed: ${result.shortMessage}\n${output}`,
      lastReport(result.stdout, schema),
    )
  }
  try {
    return schema.parse(JSON.parse(lastLine(result.stdout)))
  } catch (error) {
    throw new Error(`driver ${driver.name} printed no valid report (${String(error)})\n${output}`)
  }
}

/**
 * Runs `program` (`node` = this Node binary, else a path from the repo root) in a clean
 * environment with `SENTRY_TEST_DSN` set. Never rejects: resolves with the result and its
 * stdout and stderr formatted for error messages.
 */
export async function execProgram(
  program: string,
  args: readonly string[],
  dsn: string,
  timeout: number,
) {
  const file = program === 'node' ? process.execPath : join(repoRoot, program)
  const result = await execa(file, args, {
    cwd: repoRoot,
    env: cleanEnv({ SENTRY_TEST_DSN: dsn }),
    extendEnv: false,
    timeout,
    reject: false,
    stdin: 'ignore',
  })
  return { result, output: `--- stdout ---\n${result.stdout}\n--- stderr ---\n${result.stderr}` }
}
