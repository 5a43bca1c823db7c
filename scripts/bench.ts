/**
 * `npm run bench`: replays real captured fixture envelopes (stock SDK events of about 3 KiB,
 * fresh event ids per request) against the built server on the embedded default (SQLite in a
 * temporary directory), then the same load against a bare Fastify route that does nothing —
 * the ceiling on this machine — and prints events/s stored, p50/p99 latency, the server's CPU
 * time per event, peak memory and the ratio of the two. Results also go to artifacts/bench.json.
 *
 * Options (after `npm run bench --`): `--runs N` alternates N ingest and N ceiling runs, each on
 * a fresh server, and reports medians (the machine is shared: compare ratios, not absolutes);
 * `--profile [DIR]` writes a CPU profile of each ingest server (default artifacts/profiles);
 * `--dist DIR` benches another build (e.g. a saved copy of server/dist, for before/after);
 * `--env K=V` passes settings to the ingest server (repeatable); `--no-bare` skips the ceiling;
 * `--quota N` gives the bench project an event quota of N per hour (keep it above the run).
 */
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import {
  load,
  loadFixtures,
  median,
  peakRssMiB,
  type RunResult,
  start,
  stop,
} from './bench-load.ts'

const { values: opts } = parseArgs({
  options: {
    runs: { type: 'string', default: process.env['BENCH_RUNS'] ?? '1' },
    profile: { type: 'string' },
    dist: { type: 'string', default: 'server/dist' },
    env: { type: 'string', multiple: true, default: [] },
    'no-bare': { type: 'boolean', default: false },
    quota: { type: 'string' },
  },
  // A bare `--profile` (no directory after it) means the default directory.
  args: process.argv
    .slice(2)
    .map((a, i, all) =>
      a === '--profile' && (all[i + 1] ?? '--').startsWith('--')
        ? '--profile=artifacts/profiles'
        : a,
    ),
})
const RUNS = Math.max(1, Number(opts.runs))
const DURATION_MS = Number(process.env['BENCH_SECONDS'] ?? 10) * 1000
const WARMUP_MS = 2000
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 32)
const TOKEN = randomBytes(16).toString('hex')

interface IngestRun extends RunResult {
  peakRssMiB: number
  storedTotal: number
}

/** One ingest run on a fresh server and database. */
async function ingestRun(bodies: Buffer[]): Promise<IngestRun> {
  const dataDir = mkdtempSync(join(process.env['BENCH_TMPDIR'] ?? tmpdir(), 'ingest-bench-'))
  const extraEnv = Object.fromEntries(
    (opts.env ?? []).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  )
  const profileArgs =
    opts.profile === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${resolve(opts.profile)}`]
  const server = await start([...profileArgs, join(opts.dist, 'main.js')], {
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    INGEST_ADMIN_TOKEN: TOKEN,
    LOG_LEVEL: 'warn',
    ...extraEnv,
  })
  try {
    const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }
    const created = (await (
      await fetch(`${server.url}/api/0/projects/`, {
        method: 'POST',
        headers: auth,
        body: '{"name":"bench"}',
      })
    ).json()) as { id: number; dsn: string }
    if (opts.quota !== undefined) {
      // A quota the run stays under: the counting path runs on every event, nothing is refused.
      const put = await fetch(`${server.url}/api/0/projects/${created.id}/`, {
        method: 'PUT',
        headers: auth,
        body: JSON.stringify({ quota: { events: Number(opts.quota), window_seconds: 3600 } }),
      })
      if (!put.ok) throw new Error(`setting the quota failed: ${put.status} ${await put.text()}`)
    }
    const key = new URL(created.dsn).username
    const path = `/api/${created.id}/envelope/?sentry_key=${key}&sentry_version=7`
    const warm = await load(server, bodies, path, WARMUP_MS, CONNECTIONS)
    const run = await load(server, bodies, path, DURATION_MS, CONNECTIONS)
    const issues = (await (
      await fetch(`${server.url}/api/0/projects/${created.id}/issues/?limit=1000`, {
        headers: auth,
      })
    ).json()) as { count: number }[]
    const storedTotal = issues.reduce((n, i) => n + i.count, 0)
    // Everything acknowledged must be stored (the warm-up requests too).
    if (storedTotal < run.ok + warm.ok) {
      throw new Error(`stored ${storedTotal} < acknowledged ${run.ok + warm.ok}`)
    }
    return { ...run, peakRssMiB: peakRssMiB(server.child.pid), storedTotal }
  } finally {
    await stop(server)
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const BARE = `
import Fastify from 'fastify'
const app = Fastify()
app.removeAllContentTypeParsers()
app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1 << 26 }, (_req, body, done) => done(null, body))
app.post('/api/:projectId/envelope/', async () => ({}))
await app.listen({ host: '127.0.0.1', port: 0 })
console.log(JSON.stringify({ msg: 'listening', url: 'http://127.0.0.1:' + app.server.address().port }))
`

/** One run against the bare Fastify route. */
async function bareRun(bodies: Buffer[]): Promise<RunResult & { peakRssMiB: number }> {
  const bare = await start(['--input-type=module', '-e', BARE], {})
  try {
    await load(bare, bodies, '/api/1/envelope/', WARMUP_MS, CONNECTIONS)
    const run = await load(bare, bodies, '/api/1/envelope/', DURATION_MS, CONNECTIONS)
    return { ...run, peakRssMiB: peakRssMiB(bare.child.pid) }
  } finally {
    await stop(bare)
  }
}

const fmt = (r: RunResult & { peakRssMiB: number }, unit: string) =>
  `${r.perSec} ${unit}/s, p50 ${r.p50} ms, p99 ${r.p99} ms, ${r.cpuMsPerOk} CPU ms each, peak RSS ${r.peakRssMiB} MiB, ${r.failed} failed`

async function main(): Promise<void> {
  const bodies = loadFixtures()
  const avg = Math.round(bodies.reduce((n, b) => n + b.length, 0) / bodies.length)
  console.log(
    `${bodies.length} captured envelopes, ${avg} bytes on average; ${CONNECTIONS} connections, ${DURATION_MS / 1000} s per run, ${RUNS} run(s), server ${opts.dist}`,
  )
  const ingests: IngestRun[] = []
  const bares: (RunResult & { peakRssMiB: number })[] = []
  for (let r = 0; r < RUNS; r++) {
    const ingest = await ingestRun(bodies)
    ingests.push(ingest)
    console.log(`run ${r + 1} ingest (SQLite, durable group commit): ${fmt(ingest, 'events')}`)
    if (opts['no-bare']) continue
    const bare = await bareRun(bodies)
    bares.push(bare)
    console.log(`run ${r + 1} bare Fastify route (ceiling):          ${fmt(bare, 'requests')}`)
  }
  const med = (xs: number[]) => Math.round(median(xs) * 1000) / 1000
  const ratios = bares.map((b, i) => (ingests[i]?.perSec ?? 0) / b.perSec)
  const result = {
    fixtures: bodies.length,
    avgEnvelopeBytes: avg,
    connections: CONNECTIONS,
    runs: RUNS,
    ingest: {
      eventsPerSec: med(ingests.map((r) => r.perSec)),
      p50ms: med(ingests.map((r) => r.p50)),
      p99ms: med(ingests.map((r) => r.p99)),
      cpuMsPerEvent: med(ingests.map((r) => r.cpuMsPerOk)),
      peakRssMiB: Math.max(...ingests.map((r) => r.peakRssMiB)),
      failed: ingests.reduce((n, r) => n + r.failed, 0),
      storedTotal: ingests.reduce((n, r) => n + r.storedTotal, 0),
    },
    bare: {
      requestsPerSec: med(bares.map((r) => r.perSec)),
      p50ms: med(bares.map((r) => r.p50)),
      p99ms: med(bares.map((r) => r.p99)),
      cpuMsPerRequest: med(bares.map((r) => r.cpuMsPerOk)),
      peakRssMiB: bares.length === 0 ? Number.NaN : Math.max(...bares.map((r) => r.peakRssMiB)),
    },
    ratio: med(ratios),
  }
  const { ingest, bare } = result
  console.log(
    `${RUNS > 1 ? 'median ' : ''}ingest: ${ingest.eventsPerSec} events/s stored, p50 ${ingest.p50ms} ms, p99 ${ingest.p99ms} ms, ${ingest.cpuMsPerEvent} CPU ms/event, peak RSS ${ingest.peakRssMiB} MiB, ${ingest.failed} failed`,
  )
  if (bares.length > 0) {
    console.log(
      `${RUNS > 1 ? 'median ' : ''}ceiling: ${bare.requestsPerSec} requests/s, p50 ${bare.p50ms} ms, p99 ${bare.p99ms} ms, ${bare.cpuMsPerRequest} CPU ms/request`,
    )
    console.log(`${RUNS > 1 ? 'median ' : ''}ratio ingest / ceiling: ${result.ratio}`)
  }
  mkdirSync('artifacts', { recursive: true })
  writeFileSync('artifacts/bench.json', `${JSON.stringify(result, null, 2)}\n`)
}

main().catch((err: unknown) => {
  console.error(err)
  process.exit(1)
})
