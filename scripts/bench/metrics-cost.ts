/**
 * `npm run bench -- --metrics-cost`: what `/metrics` costs ingest. Three arms per run, their
 * order rotated run by run so a drift of the machine's load favours none: the instruments off
 * (`METRICS_ENABLED=0`), on and never scraped, and on with `/metrics` scraped every
 * `scrapeMs` (1 s: a Prometheus `scrape_interval` far shorter than usual) through the measured
 * window. Reported: events/s and p99 of each arm, the on/off events/s ratio and the p99 change
 * of the scraped arm. One server node (its metrics listener on a free loopback port).
 */
import { createServer } from 'node:net'
import { type Instance, type StartOptions, startInstance } from './instance.ts'
import { type IngestFigures, measureIngest } from './measure.ts'

/** One arm of the comparison. */
export type MetricsArm = 'off' | 'on' | 'scraped'

/** What one arm's run measured, and how many scrapes it answered meanwhile. */
export interface MetricsArmRun {
  arm: MetricsArm
  ingest: IngestFigures
  scrapes: number
  /** The slowest scrape answer, ms. */
  scrapeMaxMs: number
}

async function freePort(): Promise<number> {
  const s = createServer()
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))
  const addr = s.address()
  const port = typeof addr === 'object' && addr !== null ? addr.port : 0
  await new Promise<void>((resolve) => s.close(() => resolve()))
  return port
}

/** Starts a server for `arm`, loads it, and (scraped arm) scrapes it meanwhile. */
export async function metricsArmRun(
  options: StartOptions,
  shape: { seconds: number; warmupSeconds: number; connections: number },
  arm: MetricsArm,
  scrapeMs: number,
): Promise<MetricsArmRun> {
  const port = await freePort()
  const env = {
    ...options.env,
    METRICS_ENABLED: arm === 'off' ? '0' : '1',
    METRICS_PORT: String(port),
  }
  const inst: Instance = await startInstance({ ...options, env })
  let scrapes = 0
  let scrapeMaxMs = 0
  let timer: NodeJS.Timeout | undefined
  try {
    if (arm === 'scraped') {
      timer = setInterval(() => {
        const t0 = performance.now()
        fetch(`http://127.0.0.1:${port}/metrics`)
          .then(async (r) => {
            await r.text()
            if (r.status !== 200) throw new Error(`/metrics answered ${r.status}`)
            scrapes++
            scrapeMaxMs = Math.max(scrapeMaxMs, performance.now() - t0)
          })
          .catch((err: unknown) => {
            console.error(`bench: scrape failed: ${String(err)}`)
          })
      }, scrapeMs)
    }
    const ingest = await measureIngest(inst.target, shape)
    if (ingest.storedTotal < ingest.answers200Total) {
      throw new Error(`stored ${ingest.storedTotal} < acknowledged ${ingest.answers200Total}`)
    }
    return { arm, ingest, scrapes, scrapeMaxMs: Math.round(scrapeMaxMs) }
  } finally {
    clearInterval(timer)
    await inst.stop()
  }
}

/** The arms of run `r` (1-based), rotated so each goes first in turn. */
export function armOrder(r: number): MetricsArm[] {
  const arms: MetricsArm[] = ['off', 'on', 'scraped']
  const k = (r - 1) % arms.length
  return [...arms.slice(k), ...arms.slice(0, k)]
}

/** CPU time of the instruments themselves, measured in this process (load-robust). */
export interface InstrumentCost {
  /** One answered request counted (`ingest_requests_total`), ns of CPU. */
  requestNs: number
  /** One committed group with three outcome counters, ns of CPU. */
  commitNs: number
  /** One `/metrics` render (this app's instruments and the process's), ms wall: median, p99. */
  renderMedianMs: number
  renderP99Ms: number
  renderBytes: number
}

/**
 * Times the instruments in this process, off the server: CPU ns per counted request and per
 * committed group (with three outcome counters), and the time to render `/metrics`. Per event
 * the server does nothing more; a scrape blocks its event loop for about one render.
 */
export async function instrumentCost(): Promise<InstrumentCost> {
  const { Metrics } = await import('../../server/src/metrics/registry.ts')
  const m = new Metrics({ projectLabels: 0 })
  m.setSources({
    queue: () => ({ units: 3, bound: 256 }),
    inflight: () => ({ inflight: 5, limit: 256 }),
    shed: () => ({ early: 0, admission: 0 }),
    diskLow: () => false,
    cron: () => ({ lagSeconds: 1, recorded: 0 }),
  })
  const outcomes = [
    { projectId: 1, outcome: 'accepted', reason: '', category: 'error', quantity: 40 },
    { projectId: 1, outcome: 'duplicate', reason: '', category: 'error', quantity: 2 },
    {
      projectId: 1,
      outcome: 'client_discard',
      reason: 'sample_rate',
      category: 'error',
      quantity: 3,
    },
  ]
  const cpuNs = (n: number, f: () => void): number => {
    const t = process.cpuUsage()
    for (let i = 0; i < n; i++) f()
    const u = process.cpuUsage(t)
    return Math.round(((u.user + u.system) * 1000) / n)
  }
  cpuNs(100_000, () => m.request('/api/:projectId/envelope/', 200))
  const requestNs = cpuNs(1_000_000, () => m.request('/api/:projectId/envelope/', 200))
  cpuNs(10_000, () => m.committed(40, 0.004, outcomes))
  const commitNs = cpuNs(200_000, () => m.committed(40, 0.004, outcomes))
  const times: number[] = []
  let renderBytes = 0
  for (let i = 0; i < 300; i++) {
    const t0 = performance.now()
    renderBytes = (await m.render()).body.length
    times.push(performance.now() - t0)
  }
  times.sort((a, b) => a - b)
  const at = (q: number) =>
    Math.round((times[Math.floor(q * (times.length - 1))] ?? 0) * 1000) / 1000
  return { requestNs, commitNs, renderMedianMs: at(0.5), renderP99Ms: at(0.99), renderBytes }
}
