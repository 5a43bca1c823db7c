/**
 * `npm run bench`: loads the built server with Debian's `wrk` (the captured Node SDK error
 * envelope, a fresh event id per request), counts the events stored in the database, and prints
 * events/s, p50/p99/max, peak RSS, CPU ms per event, cores used, bytes on disk per event, then
 * the same load against a bare Fastify route (the ceiling on this machine) and the ratio.
 * Reference and decisions: docs/benchmark.md.
 *
 * Options (after `npm run bench --`):
 *   --runs N            interleave N ingest and N bare-route runs, print medians
 *   --seconds S         measured seconds per run (10); --warmup S (2); --connections C (50)
 *   --target URL --key KEY --project ID [--token T] [--pid PID]
 *                       load a running server of the protocol family instead; stored events
 *                       through its API with a token, else from 200 answers (the output says)
 *   --scale             also measure on 1 million pre-filled events in 10,000 issues, and time
 *                       the issue list and issue pages (pre-filled database cached in .cache/,
 *                       built on SQLite; with --db postgres it is copied in before each run)
 *   --overload          also offer 3× the sustainable rate, open loop (oha, built once into .cache/tools/)
 *   --overload-rate R   offer R requests/s instead of 3× the sustainable rate measured just before
 *                       (on a shared machine that measure swings, and the offered rate with it)
 *   --db sqlite|postgres, --nodes N   storage, and N server processes on one PostgreSQL
 *   --issues N          spread the events over N issues (the exception type varies per request,
 *                       taken in turn); default 1, one hot issue
 *   --users N           each event names one of N users (the captured event names none); default 0
 *   --dist DIR          the server build to run (server/dist); --env K=V settings (repeatable)
 *   --node-flags "F …"  Node flags for the server instead of npm start's (scripts/server-node-flags.mjs)
 *   --quota N           an event quota of N per hour on the bench project (429 above it)
 *   --retention N       instead of the runs above: ingest while the retention sweep removes N
 *                       pre-filled expired events vs. the same without a sweep, interleaved
 *                       (scripts/bench/retention.ts says how each backend sweeps)
 *   --metrics on|off    the server's Prometheus instruments (METRICS_ENABLED; on by default)
 *   --metrics-cost      instead of the runs above: instruments off, on, and on with /metrics
 *                       scraped every --scrape-ms (1000), interleaved (scripts/bench/metrics-cost.ts)
 *   --no-privacy        the bench project with data scrubbing and inbound filters off
 *   --privacy-compare   instead of the runs above: N runs with the default scrubbing and filters
 *                       on and N with them off, interleaved, their medians and the ratio
 *   --sourcemaps        instead of the runs above: a minified browser event resolved through an
 *                       uploaded source map vs. the same event without a bundle, interleaved, and
 *                       the first resolution of a ~5 MB map (scripts/bench/sourcemaps.ts)
 *   --pg-stats          with --db postgres: pg_stat_statements preloaded; per measured run the
 *                       statements per group commit, backend waits and ungranted pg_locks
 *                       sampled every 100 ms (scripts/bench/pg-probe.ts)
 *   --cpu-share         with --db postgres, instead of the runs above: PostgreSQL and 1, 2 and 3
 *                       nodes each in a cgroup limited to --share cores (0.4), interleaved, the
 *                       events/s per node count (scripts/bench/cpu-share.ts; needs root);
 *                       --share-nodes "1,2,3" changes the node counts
 *   --no-bare           skip the ceiling; --json FILE (artifacts/bench.json)
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { parseArgs } from 'node:util'
import { cpuShareMain } from './bench/cpu-share.ts'
import { givenTarget, type Instance, type StartOptions, startInstance } from './bench/instance.ts'
import {
  type BareFigures,
  type IngestFigures,
  measureBare,
  measureIngest,
} from './bench/measure.ts'
import {
  armOrder,
  instrumentCost,
  type MetricsArmRun,
  metricsArmRun,
} from './bench/metrics-cost.ts'
import { measureOverload, type OverloadFigures, startProbe } from './bench/overload.ts'
import { formatPgProbe } from './bench/pg-probe.ts'
import { formatBare, formatIngest, formatOverload, median, medianOf } from './bench/report.ts'
import { type RetentionRun, retentionRun } from './bench/retention.ts'
import { prefilledDatabase, timePage, timePages, withPrefilledCopy } from './bench/scale.ts'
import { formatSearches, timeSearches } from './bench/search-timing.ts'
import { startBare, stopChild } from './bench/server.ts'
import { sourceMapsMain } from './bench/sourcemaps.ts'
import { ENVELOPE, runWrk } from './bench/wrk.ts'
import { nodeFlagsFor } from './server-node-flags.mjs'

const { values: opts } = parseArgs({
  options: {
    runs: { type: 'string', default: '1' },
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '50' },
    target: { type: 'string' },
    key: { type: 'string' },
    project: { type: 'string' },
    token: { type: 'string' },
    pid: { type: 'string' },
    scale: { type: 'boolean', default: false },
    overload: { type: 'boolean', default: false },
    'overload-rate': { type: 'string' },
    db: { type: 'string', default: 'sqlite' },
    nodes: { type: 'string', default: '1' },
    dist: { type: 'string', default: 'server/dist' },
    env: { type: 'string', multiple: true, default: [] },
    'node-flags': { type: 'string' },
    'no-bare': { type: 'boolean', default: false },
    json: { type: 'string', default: 'artifacts/bench.json' },
    quota: { type: 'string' },
    retention: { type: 'string' },
    metrics: { type: 'string', default: 'on' },
    'metrics-cost': { type: 'boolean', default: false },
    'scrape-ms': { type: 'string', default: '1000' },
    'no-privacy': { type: 'boolean', default: false },
    'privacy-compare': { type: 'boolean', default: false },
    sourcemaps: { type: 'boolean', default: false },
    'pg-stats': { type: 'boolean', default: false },
    issues: { type: 'string', default: '1' },
    users: { type: 'string', default: '0' },
    'cpu-share': { type: 'boolean', default: false },
    share: { type: 'string', default: '0.4' },
    'share-nodes': { type: 'string', default: '1,2,3' },
  },
})

/** Stops with a clear message and a non-zero exit: never a made-up figure. */
function refuse(msg: string): never {
  console.error(`bench: ${msg}`)
  process.exit(2)
}

const RUNS = Math.max(1, Number(opts.runs))
const ISSUES = Number(opts.issues)
if (!Number.isInteger(ISSUES) || ISSUES < 1 || ISSUES > 1_000_000)
  refuse('--issues is a whole number from 1 to 1,000,000')
if (ISSUES > 1 && (opts.overload || opts.sourcemaps))
  refuse('--issues spreads the wrk ingest runs: not --overload (oha) or --sourcemaps')
const USERS = Number(opts.users)
if (!Number.isInteger(USERS) || USERS < 0 || USERS > 1_000_000)
  refuse('--users is a whole number from 0 to 1,000,000')
if (USERS > 0 && (opts.overload || opts.sourcemaps))
  refuse('--users names users in the wrk ingest runs: not --overload (oha) or --sourcemaps')
const shape = {
  seconds: Number(opts.seconds),
  warmupSeconds: Number(opts.warmup),
  connections: Number(opts.connections),
  ...(ISSUES > 1 ? { issues: ISSUES } : {}),
  ...(USERS > 0 ? { users: USERS } : {}),
}
const NODES = Math.max(1, Number(opts.nodes))
if (opts.db !== 'sqlite' && opts.db !== 'postgres') refuse('--db is sqlite or postgres')
const DB = opts.db
if (NODES > 1 && DB !== 'postgres')
  refuse('--nodes N > 1 needs --db postgres (one shared database)')
if (opts.target !== undefined && (opts.key === undefined || opts.project === undefined)) {
  refuse('--target needs --key KEY and --project ID')
}
if (opts.target !== undefined && (opts.scale || DB !== 'sqlite' || NODES > 1)) {
  refuse('--target loads a running server: --scale, --db and --nodes apply to the built server')
}
if (opts.metrics !== 'on' && opts.metrics !== 'off') refuse('--metrics is on or off')
if (opts['pg-stats'] && DB !== 'postgres') refuse('--pg-stats needs --db postgres')
const startOptions: StartOptions = {
  dist: opts.dist,
  env: {
    METRICS_ENABLED: opts.metrics === 'off' ? '0' : '1',
    // A free port per server (several start at once with --nodes): never a clash on 9464.
    METRICS_PORT: '0',
    ...Object.fromEntries(
      (opts.env ?? []).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
    ),
  },
  nodeFlags:
    opts['node-flags'] === undefined
      ? nodeFlagsFor(DB)
      : opts['node-flags'].split(/\s+/).filter((f) => f !== ''),
  db: DB,
  nodes: NODES,
  ...(opts.quota === undefined ? {} : { quota: Number(opts.quota) }),
  ...(opts['no-privacy'] ? { privacyOff: true } : {}),
  ...(opts['pg-stats'] ? { pgStats: true } : {}),
}

/** The server for one run: started fresh each time, or the given target. */
function instance(): Promise<Instance> {
  if (opts.target === undefined) return startInstance(startOptions)
  return Promise.resolve(
    givenTarget({
      url: opts.target,
      key: opts.key as string,
      projectId: opts.project as string,
      token: opts.token,
      pid: opts.pid === undefined ? undefined : Number(opts.pid),
    }),
  )
}

async function ingestRun(privacyOff?: boolean): Promise<IngestFigures> {
  const inst =
    privacyOff === undefined
      ? await instance()
      : await startInstance({ ...startOptions, privacyOff })
  try {
    const f = await measureIngest(inst.target, shape)
    // Every acknowledged event must be stored (warm-up included): a 200 is a promise.
    if (f.countedFrom !== 'answers' && f.storedTotal < f.answers200Total) {
      throw new Error(`stored ${f.storedTotal} < acknowledged ${f.answers200Total}`)
    }
    return f
  } finally {
    await inst.stop()
  }
}

async function bareRun(): Promise<BareFigures> {
  const bare = await startBare()
  try {
    return await measureBare(bare.url, bare.child.pid ?? -1, shape)
  } finally {
    await stopChild(bare)
  }
}

/** How long wrk loads ingest while the searches are timed (they finish well within it). */
const SEARCH_LOAD_SECONDS = Number(process.env['BENCH_SEARCH_LOAD_SECONDS'] ?? 60)

async function scaleRun(prefilled: Awaited<ReturnType<typeof prefilledDatabase>>) {
  return withPrefilledCopy(prefilled, async (copy) => {
    const inst = await startInstance({ ...startOptions, prefilled: copy })
    try {
      const pagesIdle = await timePages(inst.url, inst.token as string, inst.projectId)
      const f = await measureIngest(inst.target, shape)
      // Does a page view stall ingest? The issue list page fetched once, 1 s into a 5 s load,
      // while a probe posts an event every 50 ms: the probe's slowest answer is the stall (wrk
      // does not record requests still open when its time is up, so it cannot show one).
      const probe = startProbe(new URL(inst.target.path, inst.url).href)
      const loaded = runWrk({
        url: inst.url,
        path: inst.target.path,
        connections: shape.connections,
        seconds: 5,
        issues: ISSUES,
      })
      await new Promise((r) => setTimeout(r, 1000))
      const listMs = await timePage(
        inst.url,
        inst.token as string,
        `/projects/${inst.projectId}/issues`,
      )
      await new Promise((r) => setTimeout(r, 500))
      await probe.stop()
      await loaded
      const waits = probe.samples.map((x) => x.ms)
      const underLoad = {
        issueListMs: Math.round(listMs),
        ingestMaxMs: Math.round(Math.max(...waits)),
        ingestMedianMs: Math.round(median(waits)),
      }
      // The searches while wrk loads ingest for as long as they take (docs/search.md).
      const searchLoad = runWrk({
        url: inst.url,
        path: inst.target.path,
        connections: shape.connections,
        seconds: SEARCH_LOAD_SECONDS,
        issues: ISSUES,
      })
      await new Promise((r) => setTimeout(r, 1000))
      const searches = await timeSearches(inst.url, inst.token as string, inst.projectId, 20)
      await searchLoad
      return { ingest: f, pages: pagesIdle, underLoad, searches }
    } finally {
      await inst.stop()
    }
  })
}

async function main(): Promise<void> {
  const what =
    opts.target === undefined
      ? `${opts.dist} on ${DB}${NODES > 1 ? `, ${NODES} nodes` : ''}, node ${startOptions.nodeFlags.join(' ') || '(no flags)'}`
      : `target ${opts.target}`
  console.log(
    `payload ${ENVELOPE} (fresh event id per request${ISSUES > 1 ? `, spread over ${ISSUES} issues` : ', one issue'}${USERS > 0 ? `, each naming one of ${USERS} users` : ''}); wrk, ${shape.connections} connections, ${shape.warmupSeconds} s warm-up + ${shape.seconds} s per run, ${RUNS} run(s); ${what}`,
  )
  if (opts.retention !== undefined) return retentionMain(Number(opts.retention))
  if (opts['metrics-cost']) return metricsCostMain(Number(opts['scrape-ms']))
  if (opts['privacy-compare']) return privacyMain()
  if (opts.sourcemaps) return sourceMapsMain(startOptions, shape, RUNS)
  if (opts['cpu-share']) return cpuShare()
  const prefilled = opts.scale ? await prefilledDatabase(startOptions) : undefined
  const ingests: IngestFigures[] = []
  const bares: BareFigures[] = []
  const scales: Awaited<ReturnType<typeof scaleRun>>[] = []
  for (let r = 1; r <= RUNS; r++) {
    const ingest = await ingestRun()
    ingests.push(ingest)
    console.log(`run ${r} ingest:  ${formatIngest(ingest)}`)
    if (ingest.pgStats !== undefined) console.log(formatPgProbe(ingest.pgStats))
    if (!opts['no-bare']) {
      const bare = await bareRun()
      bares.push(bare)
      console.log(`run ${r} bare route: ${formatBare(bare)}`)
    }
    if (prefilled !== undefined) {
      const s = await scaleRun(prefilled)
      scales.push(s)
      console.log(`run ${r} at scale: ${formatIngest(s.ingest)}`)
      console.log(formatSearches(s.searches))
      console.log(
        `run ${r} pages at scale: issue list ${s.pages.issueListMs} ms, issue ${s.pages.issueMs} ms (median of ${s.pages.samples}, idle server); under load the issue list took ${s.underLoad.issueListMs} ms and a probe event meanwhile waited ${s.underLoad.ingestMaxMs} ms at most (median ${s.underLoad.ingestMedianMs} ms)`,
      )
    }
  }
  const m = RUNS > 1 ? 'median ' : ''
  const ingest = medianOf(ingests)
  console.log(`\n${m}ingest:     ${formatIngest(ingest)}`)
  const bare = bares.length > 0 ? medianOf(bares) : undefined
  const ratio =
    bare === undefined
      ? undefined
      : Math.round(
          medianOf(
            ingests.map((f, i) => ({
              r: f.eventsPerSec / (bares[i]?.requestsPerSec ?? Number.NaN),
            })),
          ).r * 1000,
        ) / 1000
  if (bare !== undefined) {
    console.log(`${m}bare route: ${formatBare(bare)}`)
    console.log(`${m}ratio ingest / bare-route ceiling: ${ratio}`)
    // The bare route's ceiling is its one JS thread: near 1 core busy means it was reached and
    // wrk (2 threads) had room; less means other processes took the CPU (a floor, not a ceiling).
    const saturated = bare.coresUsed >= 0.9
    console.log(
      `bare route ${saturated ? 'at its ceiling' : 'BELOW its ceiling (machine busy: a floor)'}: server ${bare.coresUsed} cores (one JS thread is the limit), wrk ${bare.generatorCores} of its 2 threads`,
    )
  }
  let scale: Record<string, unknown> | undefined
  if (scales.length > 0) {
    const si = medianOf(scales.map((s) => s.ingest))
    const pages = medianOf(scales.map((s) => s.pages))
    const underLoad = medianOf(scales.map((s) => s.underLoad))
    const vsEmpty = Math.round((si.eventsPerSec / ingest.eventsPerSec) * 100) / 100
    console.log(`${m}at scale:   ${formatIngest(si)}`)
    console.log(`${m}at scale / empty database: ${vsEmpty}`)
    console.log(`${m}pages at scale: issue list ${pages.issueListMs} ms, issue ${pages.issueMs} ms`)
    console.log(
      `${m}issue list page during ingest load: ${underLoad.issueListMs} ms; a probe event meanwhile waited ${underLoad.ingestMaxMs} ms at most (median ${underLoad.ingestMedianMs} ms)`,
    )
    scale = { ingest: si, pages, underLoad, vsEmpty, runs: scales }
  }
  let overload: OverloadFigures | undefined
  if (opts.overload) {
    const inst = await instance()
    try {
      const fixed = opts['overload-rate'] === undefined ? undefined : Number(opts['overload-rate'])
      overload = await measureOverload(inst, shape, fixed)
    } finally {
      await inst.stop()
    }
    console.log(`overload:   ${formatOverload(overload)}`)
  }
  const result = {
    shape,
    runs: RUNS,
    db: DB,
    nodes: NODES,
    nodeFlags: opts.target === undefined ? startOptions.nodeFlags : null,
    target: opts.target ?? null,
    ingest,
    bare: bare ?? null,
    ratio: ratio ?? null,
    ingestRuns: ingests,
    bareRuns: bares,
    scale: scale ?? null,
    overload: overload ?? null,
  }
  mkdirSync(dirname(opts.json), { recursive: true })
  writeFileSync(opts.json, `${JSON.stringify(result, null, 2)}\n`)
}

/**
 * `--privacy-compare`: the same ingest load with the project's default data scrubbing and
 * inbound filters on and with them off, interleaved (on, off, on, off…), and their medians.
 */
async function privacyMain(): Promise<void> {
  if (opts.target !== undefined) refuse('--privacy-compare runs the built server')
  const on: IngestFigures[] = []
  const off: IngestFigures[] = []
  for (let r = 1; r <= RUNS; r++) {
    const a = await ingestRun(false)
    on.push(a)
    console.log(`run ${r} privacy on:  ${formatIngest(a)}`)
    const b = await ingestRun(true)
    off.push(b)
    console.log(`run ${r} privacy off: ${formatIngest(b)}`)
  }
  const mOn = medianOf(on)
  const mOff = medianOf(off)
  const ratio = Math.round((mOn.eventsPerSec / mOff.eventsPerSec) * 1000) / 1000
  console.log(`\nmedian privacy on:  ${formatIngest(mOn)}`)
  console.log(`median privacy off: ${formatIngest(mOff)}`)
  console.log(`events/s on / off: ${ratio}`)
  mkdirSync(dirname(opts.json), { recursive: true })
  writeFileSync(
    opts.json,
    `${JSON.stringify({ shape, runs: RUNS, db: DB, privacyOn: mOn, privacyOff: mOff, ratio, onRuns: on, offRuns: off }, null, 2)}\n`,
  )
}

/** `--cpu-share`: the node counts under equal CPU quotas (scripts/bench/cpu-share.ts). */
function cpuShare(): Promise<void> {
  if (DB !== 'postgres' || opts.target !== undefined)
    refuse('--cpu-share runs the built server on PostgreSQL: add --db postgres')
  const share = Number(opts.share)
  if (!(share >= 0.05 && share <= 64)) refuse('--share is a number of cores from 0.05 to 64')
  const counts = (opts['share-nodes'] ?? '').split(',').map(Number)
  if (counts.length === 0 || counts.some((n) => !Number.isInteger(n) || n < 1 || n > 16))
    refuse('--share-nodes is a list of node counts from 1 to 16, e.g. 1,2,3')
  return cpuShareMain(startOptions, shape, RUNS, share, counts, opts.json)
}

/** `--retention N`: runs without and with the sweep, interleaved, and their medians. */
async function retentionMain(n: number): Promise<void> {
  if (!(n >= 1000)) refuse('--retention N needs N ≥ 1000 expired events')
  if (opts.target !== undefined || NODES > 1) refuse('--retention runs one built server')
  console.log(`retention: ${n} expired events pre-filled on ${DB}`)
  const without: RetentionRun[] = []
  const during: RetentionRun[] = []
  for (let r = 1; r <= RUNS; r++) {
    // The arms take turns going first, so a drift of the machine's load favours neither.
    const b0 = r % 2 === 0 ? await retentionRun(startOptions, shape, n, true) : undefined
    const a = await retentionRun(startOptions, shape, n, false)
    without.push(a)
    console.log(`run ${r} no sweep:     ${formatIngest(a.ingest)}`)
    const b = b0 ?? (await retentionRun(startOptions, shape, n, true))
    during.push(b)
    const when =
      b.sweepFromS === undefined
        ? `server's sweep started before the window; ${b.expiredLeftAtEnd} expired events left at its end${b.expiredLeftAtEnd === 0 ? ' (the sweep ENDED INSIDE the window: raise N)' : ''}`
        : `bench's sweep ran from ${b.sweepFromS} s to ${b.sweepToS} s of the ${shape.seconds} s window, removed ${b.removed} events; ${b.expiredLeftAtEnd} left`
    console.log(`run ${r} during sweep: ${formatIngest(b.ingest)}; ${when}`)
  }
  const a = medianOf(without.map((x) => x.ingest))
  const b = medianOf(during.map((x) => x.ingest))
  const ratio = Math.round((b.eventsPerSec / a.eventsPerSec) * 1000) / 1000
  const m = RUNS > 1 ? 'median ' : ''
  console.log(`\n${m}no sweep:     ${formatIngest(a)}`)
  console.log(`${m}during sweep: ${formatIngest(b)}`)
  console.log(`${m}ratio during sweep / no sweep: ${ratio}`)
  mkdirSync(dirname(opts.json), { recursive: true })
  writeFileSync(
    opts.json,
    `${JSON.stringify({ shape, runs: RUNS, db: DB, retention: { expired: n, without, during, ratio } }, null, 2)}\n`,
  )
}

/** `--metrics-cost`: the three arms of scripts/bench/metrics-cost.ts, interleaved. */
async function metricsCostMain(scrapeMs: number): Promise<void> {
  if (opts.target !== undefined || NODES > 1) refuse('--metrics-cost runs one built server')
  if (!(scrapeMs >= 100)) refuse('--scrape-ms is at least 100')
  const cost = await instrumentCost()
  console.log(
    `instruments in-process: ${cost.requestNs} ns CPU per counted request, ${cost.commitNs} ns per committed group (3 outcome counters); /metrics render ${cost.renderMedianMs} ms median, ${cost.renderP99Ms} ms p99, ${cost.renderBytes} bytes`,
  )
  const runs: MetricsArmRun[] = []
  for (let r = 1; r <= RUNS; r++) {
    for (const arm of armOrder(r)) {
      const run = await metricsArmRun(startOptions, shape, arm, scrapeMs)
      runs.push(run)
      const scraped =
        arm === 'scraped' ? `; ${run.scrapes} scrapes, slowest ${run.scrapeMaxMs} ms` : ''
      console.log(`run ${r} metrics ${arm.padEnd(7)}: ${formatIngest(run.ingest)}${scraped}`)
    }
  }
  const of = (arm: string) => medianOf(runs.filter((x) => x.arm === arm).map((x) => x.ingest))
  const off = of('off')
  const on = of('on')
  const scraped = of('scraped')
  const m = RUNS > 1 ? 'median ' : ''
  const ratio = Math.round((on.eventsPerSec / off.eventsPerSec) * 1000) / 1000
  const ratioScraped = Math.round((scraped.eventsPerSec / off.eventsPerSec) * 1000) / 1000
  console.log(`\n${m}metrics off:     ${formatIngest(off)}`)
  console.log(`${m}metrics on:      ${formatIngest(on)}`)
  console.log(`${m}metrics scraped: ${formatIngest(scraped)}`)
  console.log(
    `${m}events/s on / off: ${ratio}; scraped every ${scrapeMs} ms / off: ${ratioScraped}`,
  )
  console.log(
    `${m}p99: off ${off.p99Ms} ms, on ${on.p99Ms} ms, scraped ${scraped.p99Ms} ms (scraped − on: ${Math.round((scraped.p99Ms - on.p99Ms) * 100) / 100} ms)`,
  )
  mkdirSync(dirname(opts.json), { recursive: true })
  writeFileSync(
    opts.json,
    `${JSON.stringify({ shape, runs: RUNS, db: DB, metricsCost: { scrapeMs, cost, off, on, scraped, ratio, ratioScraped, runs } }, null, 2)}\n`,
  )
}

main().catch((err: unknown) => {
  console.error(`bench: ${err instanceof Error ? err.message : String(err)}`)
  process.exit(1)
})
