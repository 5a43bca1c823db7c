/**
 * Harness pieces for the release-health and cron conformance tests: running the session and
 * check-in driver programs (a crashing process is a valid outcome there), and a typed client
 * for the releases, monitors and test-clock routes of the management API.
 */
import { z } from 'zod'
import { AdminClient } from './api.ts'
import { type Driver, execProgram } from './drivers.ts'

/** Options for {@link runProgram}. */
export interface ProgramOptions {
  /** The driver whose runtime runs the program (`node` = this Node binary). */
  driver: Driver
  /** The program, relative to the repo root, e.g. `conformance/drivers/node/sessions.mjs`. */
  program: string
  args: string[]
  dsn: string
  /** Exit codes that count as success (default `[0]`; a crash scenario also expects 1). */
  exitCodes?: number[]
  timeout?: number
}

/**
 * Runs a driver program in a clean environment with `SENTRY_TEST_DSN` set, and returns the
 * JSON report of its first stdout line that is one. Throws with its output on failure.
 */
export async function runProgram(opts: ProgramOptions): Promise<Record<string, unknown>> {
  const [runtime] = opts.driver.command
  if (runtime === undefined) throw new Error(`driver ${opts.driver.name} has no command`)
  const args = [opts.program, ...opts.args]
  const { result, output } = await execProgram(runtime, args, opts.dsn, opts.timeout ?? 30_000)
  const allowed = opts.exitCodes ?? [0]
  if (result.timedOut || result.exitCode === undefined || !allowed.includes(result.exitCode)) {
    throw new Error(
      `${opts.program} ${opts.args.join(' ')} failed: ${result.shortMessage}\n${output}`,
    )
  }
  for (const line of result.stdout.split('\n')) {
    if (!line.startsWith('{')) continue
    try {
      return z.record(z.string(), z.unknown()).parse(JSON.parse(line))
    } catch {
      // not the report line
    }
  }
  throw new Error(`${opts.program} printed no JSON report\n${output}`)
}

const health = z.looseObject({
  sessions: z.number(),
  users: z.number(),
  crash_free_sessions: z.number().nullable(),
  crash_free_users: z.number().nullable(),
  sessions_healthy: z.number(),
  sessions_errored: z.number(),
  sessions_unhandled: z.number(),
  sessions_abnormal: z.number(),
  sessions_crashed: z.number(),
  users_crashed: z.number(),
})
/** Health figures of a release. */
export type Health = z.infer<typeof health>

const release = z.looseObject({
  version: z.string(),
  environments: z.array(z.string().nullable()),
  health,
})
/** One entry of `GET /api/0/projects/{id}/releases/`. */
export type Release = z.infer<typeof release>

const monitor = z.looseObject({
  slug: z.string(),
  status: z.string(),
  schedule: z.looseObject({ type: z.string(), value: z.union([z.string(), z.number()]) }),
  timezone: z.string(),
  checkin_margin: z.number(),
  max_runtime: z.number(),
  next_checkin: z.string().nullable(),
  environments: z.array(
    z.looseObject({
      name: z.string(),
      status: z.string(),
      next_checkin: z.string().nullable(),
      next_checkin_latest: z.string().nullable(),
    }),
  ),
})
/** One entry of `GET /api/0/projects/{id}/monitors/`. */
export type Monitor = z.infer<typeof monitor>

const run = z.looseObject({
  id: z.string(),
  status: z.string(),
  environment: z.string(),
  duration: z.number().nullable(),
  event_id: z.string().nullable(),
})
/** One entry of a monitor's check-in timeline. */
export type Run = z.infer<typeof run>

const tick = z.looseObject({
  held: z.boolean(),
  now: z.string(),
  recorded: z.number(),
  events: z.array(z.string()),
})

/** The release-health and monitor routes of one server, as admin. */
export class HealthApi extends AdminClient {
  /** Releases with their health (default range: the last 90 days). */
  async releases(projectId: number): Promise<Release[]> {
    return z
      .array(release)
      .parse(await this.request('GET', `/api/0/projects/${projectId}/releases/`))
  }

  /** The health of one release, or undefined while it has no sessions. */
  async releaseHealth(projectId: number, version: string): Promise<Health | undefined> {
    return (await this.releases(projectId)).find((r) => r.version === version)?.health
  }

  async monitors(projectId: number): Promise<Monitor[]> {
    return z
      .array(monitor)
      .parse(await this.request('GET', `/api/0/projects/${projectId}/monitors/`))
  }

  async runs(projectId: number, slug: string): Promise<Run[]> {
    const path = `/api/0/projects/${projectId}/monitors/${encodeURIComponent(slug)}/checkins/`
    return z.array(run).parse(await this.request('GET', path))
  }

  /** Runs the server's cron clock as if it were `now` (needs `INGEST_TEST_CLOCK=1`). */
  async tick(now: number): Promise<z.infer<typeof tick>> {
    const path = `/api/0/internal/clock/tick/?now=${new Date(now).toISOString()}`
    return tick.parse(await this.request('POST', path))
  }
}
