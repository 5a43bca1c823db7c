/**
 * Runs the matrix against one target: every declared cell, concurrently up to a limit, with a
 * progress line per finished cell, and turns the outcome into a {@link Report}. Cells whose
 * driver cannot run here are "not run" with the driver's reason — except on CI, where a missing
 * runtime is a failure, so a broken CI image cannot turn the matrix green by skipping it.
 */
import { type Driver, loadDriver } from '../harness/drivers.ts'
import { type RecordingProxy, startRecordingProxy } from '../harness/recording-proxy.ts'
import { CellContext, READ_BACK_MS, RunState, type Target } from './context.ts'
import type { Capability, Matrix, Row } from './matrix.ts'
import {
  type CellResult,
  type FixtureResult,
  REPORT_SCHEMA_VERSION,
  type Report,
  type RequestEvidence,
  summarize,
} from './report.ts'
import { SCENARIOS } from './scenarios/index.ts'

/** Options of one matrix run. */
export interface RunOptions {
  url: string
  token: string
  startedByRunner: boolean
  matrix: Matrix
  capabilities: Record<Capability, { available: boolean; reason: string }>
  /** Only these rows / scenarios (undefined: all). */
  rows?: ReadonlySet<string>
  scenarios?: ReadonlySet<string>
  /** How long scenarios wait for read-backs (default {@link READ_BACK_MS}). */
  readBackMs?: number
  /** How many cells run at once. */
  concurrency: number
  /** True on CI: a driver whose runtime is missing fails instead of being "not run". */
  ci: boolean
  /** Progress lines go here (the terminal). */
  log: (line: string) => void
  fixtures?: () => Promise<FixtureResult[]>
  /** Reads a driver description (default: `drivers/<name>/driver.json`); tests pass their own. */
  loadDriver?: (name: string) => Driver
}

/** A pending cell. */
interface Job {
  row: Row
  scenario: string
  driver: Driver
}

/** Runs `jobs` with at most `limit` at once, in order of start. */
async function pool<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>) {
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T
      await fn(item)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, limit) }, worker))
}

/** How long one cell may take before it is failed (drivers have their own 120 s timeout). */
const CELL_TIMEOUT_MS = 300_000

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no result within ${ms / 1000} s`)), ms)
  })
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer))
}

/** An assertion's expected and actual values (vitest puts them on the error), for evidence. */
function assertionValues(error: unknown): string {
  if (typeof error !== 'object' || error === null) return ''
  if (!('expected' in error) || !('actual' in error)) return ''
  const show = (v: unknown) => {
    try {
      return JSON.stringify(v, null, 2)
    } catch {
      return String(v)
    }
  }
  return `\n--- expected ---\n${show(error.expected)}\n--- actual ---\n${show(error.actual)}`
}

/** The first line of an error, for the report's short reason. */
const firstLine = (text: string): string => (text.split('\n')[0] ?? '').slice(0, 300)

/**
 * The requests of a cell's projects as the recording proxy saw them, for its evidence: each
 * answered one with its time in the proxy (`ms`, from receiving it to the answer) and the
 * server's share (`serverMs`, from forwarding it), then those not answered by `ended`
 * (`pending`, status 0): a stalled server shows, and so does a proxy that never forwarded.
 */
export function requestEvidence(
  proxy: RecordingProxy,
  projects: readonly number[],
  ended: number,
): RequestEvidence[] {
  const ofCell = (r: { path: string }) => projects.some((id) => r.path.startsWith(`/api/${id}/`))
  return [
    ...proxy.requests.filter(ofCell).map((r) => ({
      at: new Date(r.at).toISOString(),
      method: r.method,
      path: r.path,
      ...(r.encoding === undefined ? {} : { encoding: r.encoding }),
      itemTypes: r.itemTypes,
      status: r.status,
      ...(r.retryAfter === undefined ? {} : { retryAfter: r.retryAfter }),
      ...(r.rateLimits === undefined ? {} : { rateLimits: r.rateLimits }),
      answer: r.answer,
      ms: r.answeredAt - r.at,
      ...(r.forwardedAt === undefined ? {} : { serverMs: r.answeredAt - r.forwardedAt }),
    })),
    ...proxy
      .inFlight()
      .filter(ofCell)
      .map((r) => ({
        at: new Date(r.at).toISOString(),
        method: r.method,
        path: r.path,
        itemTypes: [],
        status: 0,
        answer:
          r.forwardedAt === undefined
            ? `the SDK's body was still being read ${ended - r.at} ms after the proxy received the request, when the cell ended`
            : `no answer from the server ${ended - r.forwardedAt} ms after the proxy forwarded the request, when the cell ended`,
        ms: ended - r.at,
        ...(r.forwardedAt === undefined ? {} : { serverMs: ended - r.forwardedAt }),
        pending: true,
      })),
  ]
}

/** Runs the matrix; never throws for a failing cell. */
export async function runMatrix(opts: RunOptions): Promise<Report> {
  const { matrix } = opts
  const proxy = await startRecordingProxy(opts.url.replace(/\/+$/, ''))
  const target: Target = {
    url: opts.url.replace(/\/+$/, ''),
    token: opts.token,
    proxy,
    readBackMs: opts.readBackMs ?? READ_BACK_MS,
  }
  const state = new RunState()
  const results: CellResult[] = []
  const drivers = new Map<string, Driver>()
  const driverOf = (name: string): Driver => {
    let d = drivers.get(name)
    if (d === undefined) {
      d = (opts.loadDriver ?? loadDriver)(name)
      drivers.set(name, d)
    }
    return d
  }
  const scenarios = matrix.scenarios.filter((s) => opts.scenarios?.has(s.id) ?? true)
  const rows = matrix.rows.filter((r) => opts.rows?.has(r.id) ?? true)
  const jobs: Job[] = []
  const sdkVersions = new Map<string, { package: string; version: string }>()

  for (const row of rows) {
    for (const scenario of scenarios) {
      const cell = row.cells[scenario.id]
      const base = { row: row.id, scenario: scenario.id }
      if (cell === undefined || cell !== 'expected') {
        results.push({ ...base, status: 'unsupported', reason: cell?.unsupported ?? 'undeclared' })
        continue
      }
      const driver = driverOf(row.driver)
      if (driver.missing !== undefined) {
        results.push({
          ...base,
          status: opts.ci ? 'fail' : 'not-run',
          reason: opts.ci
            ? `runtime missing on CI: ${driver.missing}`
            : `runtime missing: ${driver.missing}`,
        })
        continue
      }
      const lacking = (scenario.needs ?? []).find((need) => !opts.capabilities[need].available)
      if (lacking !== undefined) {
        results.push({ ...base, status: 'not-run', reason: opts.capabilities[lacking].reason })
        continue
      }
      jobs.push({ row, scenario: scenario.id, driver })
    }
  }

  const total = jobs.length
  let done = 0
  opts.log(`running ${total} cells (${results.length} unsupported or not runnable) on ${opts.url}`)
  try {
    await pool(jobs, opts.concurrency, async (job) => {
      const started = Date.now()
      const ctx = new CellContext(target, job.row, job.driver, state)
      const impl = SCENARIOS.get(job.scenario)
      let result: CellResult
      try {
        if (impl === undefined) throw new Error(`no implementation of ${job.scenario}`)
        await withTimeout(impl.run(ctx), CELL_TIMEOUT_MS, `${job.row.id} × ${job.scenario}`)
        result = { row: job.row.id, scenario: job.scenario, status: 'pass' }
        if (ctx.summary !== undefined) result.reason = ctx.summary
      } catch (error) {
        const text = error instanceof Error ? (error.stack ?? error.message) : String(error)
        ctx.evidence.error = text + assertionValues(error)
        result = {
          row: job.row.id,
          scenario: job.scenario,
          status: 'fail',
          reason: firstLine(error instanceof Error ? error.message : String(error)),
        }
      }
      const ended = Date.now()
      result.durationMs = ended - started
      ctx.evidence.requests = requestEvidence(proxy, ctx.evidence.projects, ended)
      result.evidence = ctx.evidence
      if (ctx.evidence.sdk !== undefined) sdkVersions.set(job.row.id, ctx.evidence.sdk)
      results.push(result)
      done++
      const secs = ((result.durationMs ?? 0) / 1000).toFixed(1)
      const why = result.status === 'fail' ? `: ${result.reason}` : ''
      opts.log(
        `[${done}/${total}] ${job.row.id} × ${job.scenario}: ${result.status} (${secs} s)${why}`,
      )
    })
  } finally {
    await proxy.close()
  }

  const fixtures = opts.fixtures === undefined ? [] : await opts.fixtures()
  const order = (r: CellResult) =>
    rows.findIndex((x) => x.id === r.row) * 1000 + scenarios.findIndex((s) => s.id === r.scenario)
  results.sort((a, b) => order(a) - order(b))
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    generatedAt: new Date().toISOString(),
    target: { url: opts.url, startedByRunner: opts.startedByRunner },
    capabilities: opts.capabilities,
    scenarios: scenarios.map((s) => ({ id: s.id, title: s.title })),
    rows: rows.map((r) => {
      const sdk = sdkVersions.get(r.id)
      return {
        id: r.id,
        label: r.label,
        family: r.family,
        ...(r.framework === undefined ? {} : { framework: r.framework }),
        ...(sdk === undefined ? {} : { sdk }),
      }
    }),
    cells: results,
    fixtures,
    summary: summarize([...results, ...fixtures]),
  }
}
