/**
 * `npm run bench`: replays real captured fixture envelopes (stock SDK events of about 3 KiB,
 * fresh event ids per request) against the built server on the embedded default (SQLite in a
 * temporary directory), then the same load against a bare Fastify route that does nothing —
 * the ceiling on this machine — and prints events/s stored, p50/p99 latency, peak memory and
 * the ratio of the two. Results also go to artifacts/bench.json.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'

const DURATION_MS = Number(process.env['BENCH_SECONDS'] ?? 10) * 1000
const WARMUP_MS = 2000
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 32)
const TOKEN = randomBytes(16).toString('hex')

interface Target {
  url: string
  child: ChildProcess
}

function start(args: string[], env: Record<string, string>): Promise<Target> {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server did not start in 20 s')), 20_000)
    const rl = createInterface({ input: child.stdout as NodeJS.ReadableStream })
    rl.on('line', (line) => {
      if (!line.startsWith('{"msg":"listening"')) return
      clearTimeout(timer)
      resolve({ url: (JSON.parse(line) as { url: string }).url, child })
    })
    child.on('exit', (code) => reject(new Error(`server exited with ${code}`)))
  })
}

/** Peak resident memory of a process, from /proc (Linux). */
function peakRssMiB(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m?.[1] === undefined ? Number.NaN : Math.round(Number(m[1]) / 1024)
}

/** Real captured SDK envelopes holding one event each. */
function loadFixtures(): Buffer[] {
  const dir = 'fixtures/envelopes/event'
  const bodies = readdirSync(dir)
    .filter((f) => /^(node|python)-.*\.envelope$/.test(f))
    .map((f) => readFileSync(join(dir, f)))
  if (bodies.length === 0) throw new Error(`no captured SDK envelopes in ${dir}`)
  return bodies
}

/** The same bytes with every occurrence of the event id replaced (dashed or not): same length. */
function withFreshId(body: Buffer): Buffer {
  const text = body.toString('latin1')
  const m = /"event_id":"([0-9a-f]{32})"/.exec(text)
  if (m?.[1] === undefined) return body
  const fresh = randomBytes(16).toString('hex')
  return Buffer.from(text.replaceAll(m[1], fresh), 'latin1')
}

interface RunResult {
  ok: number
  failed: number
  seconds: number
  p50: number
  p99: number
}

async function load(url: string, bodies: Buffer[], path: string, ms: number): Promise<RunResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS })
  const target = new URL(path, url)
  const latencies: number[] = []
  let ok = 0
  let failed = 0
  let i = 0
  const end = Date.now() + ms
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const body = withFreshId(bodies[i++ % bodies.length] as Buffer)
      const t0 = process.hrtime.bigint()
      const req = http.request(
        target,
        { method: 'POST', agent, headers: { 'content-length': body.length } },
        (res) => {
          res.resume()
          res.on('end', () => {
            latencies.push(Number(process.hrtime.bigint() - t0) / 1e6)
            if (res.statusCode === 200) ok++
            else failed++
            resolve()
          })
        },
      )
      req.on('error', () => {
        failed++
        resolve()
      })
      req.end(body)
    })
  const started = Date.now()
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < end) await one()
    }),
  )
  const seconds = (Date.now() - started) / 1000
  agent.destroy()
  latencies.sort((a, b) => a - b)
  const pct = (p: number) =>
    Math.round((latencies[Math.floor((latencies.length - 1) * p)] ?? Number.NaN) * 100) / 100
  return { ok, failed, seconds, p50: pct(0.5), p99: pct(0.99) }
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

async function main(): Promise<void> {
  const bodies = loadFixtures()
  const avg = Math.round(bodies.reduce((n, b) => n + b.length, 0) / bodies.length)
  console.log(
    `${bodies.length} captured envelopes, ${avg} bytes on average; ${CONNECTIONS} connections, ${DURATION_MS / 1000} s per run`,
  )

  const dataDir = mkdtempSync(join(tmpdir(), 'ingest-bench-'))
  const server = await start(['server/dist/main.js'], {
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    INGEST_ADMIN_TOKEN: TOKEN,
    LOG_LEVEL: 'warn',
  })
  const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }
  const created = (await (
    await fetch(`${server.url}/api/0/projects/`, {
      method: 'POST',
      headers: auth,
      body: '{"name":"bench"}',
    })
  ).json()) as { id: number; dsn: string }
  const key = new URL(created.dsn).username
  const path = `/api/${created.id}/envelope/?sentry_key=${key}&sentry_version=7`
  await load(server.url, bodies, path, WARMUP_MS)
  const ingest = await load(server.url, bodies, path, DURATION_MS)
  const issues = (await (
    await fetch(`${server.url}/api/0/projects/${created.id}/issues/?limit=1000`, { headers: auth })
  ).json()) as { count: number }[]
  const storedTotal = issues.reduce((n, i) => n + i.count, 0)
  const ingestPeak = peakRssMiB(server.child.pid)
  server.child.kill('SIGTERM')
  await new Promise((r) => server.child.once('exit', r))
  rmSync(dataDir, { recursive: true, force: true })

  const bare = await start(['--input-type=module', '-e', BARE], {})
  await load(bare.url, bodies, '/api/1/envelope/', WARMUP_MS)
  const ceiling = await load(bare.url, bodies, '/api/1/envelope/', DURATION_MS)
  const barePeak = peakRssMiB(bare.child.pid)
  bare.child.kill('SIGTERM')

  const eventsPerSec = Math.round(ingest.ok / ingest.seconds)
  const barePerSec = Math.round(ceiling.ok / ceiling.seconds)
  const result = {
    fixtures: bodies.length,
    avgEnvelopeBytes: avg,
    connections: CONNECTIONS,
    ingest: {
      eventsPerSec,
      p50ms: ingest.p50,
      p99ms: ingest.p99,
      peakRssMiB: ingestPeak,
      failed: ingest.failed,
      storedTotal,
    },
    bare: {
      requestsPerSec: barePerSec,
      p50ms: ceiling.p50,
      p99ms: ceiling.p99,
      peakRssMiB: barePeak,
    },
    ratio: Math.round((eventsPerSec / barePerSec) * 1000) / 1000,
  }
  console.log(
    `ingest (SQLite, durable group commit): ${eventsPerSec} events/s stored, p50 ${ingest.p50} ms, p99 ${ingest.p99} ms, peak RSS ${ingestPeak} MiB, ${ingest.failed} failed`,
  )
  console.log(
    `bare Fastify route (ceiling):          ${barePerSec} requests/s, p50 ${ceiling.p50} ms, p99 ${ceiling.p99} ms, peak RSS ${barePeak} MiB`,
  )
  console.log(`ratio ingest / ceiling: ${result.ratio}`)
  mkdirSync('artifacts', { recursive: true })
  writeFileSync('artifacts/bench.json', `${JSON.stringify(result, null, 2)}\n`)
  // Everything acknowledged must be stored (the warm-up requests too).
  if (storedTotal < ingest.ok) {
    console.error(`stored ${storedTotal} < acknowledged ${ingest.ok}`)
    process.exit(1)
  }
}

main().catch((err: unknown) => {
  console.error(err)
  process.exit(1)
})
