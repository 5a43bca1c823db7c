import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A real Prometheus server (Debian's `prometheus` binary) of one test. */
export interface RunningPrometheus {
  url: string
  /** An instant PromQL query: `[labels, value]` per series. */
  query(promql: string): Promise<[Record<string, string>, number][]>
  /** The alerts Prometheus holds now (pending or firing), by name and state. */
  alerts(): Promise<{ name: string; state: string; labels: Record<string, string> }[]>
  /** Scrape targets and their health. */
  targets(): Promise<{ scrapeUrl: string; health: string }[]>
  /** Its log, for a failure message. */
  log(): string
  stop(): Promise<void>
}

/** A free loopback port (bound and released: the window in between is the caller's risk). */
export async function freePort(): Promise<number> {
  const s = createServer()
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))
  const addr = s.address()
  const port = typeof addr === 'object' && addr !== null ? addr.port : 0
  await new Promise<void>((resolve) => s.close(() => resolve()))
  return port
}

interface ApiAnswer<T> {
  status: string
  data: T
  error?: string
}

async function api<T>(base: string, path: string): Promise<T> {
  const res = await fetch(`${base}${path}`)
  const body = (await res.json()) as ApiAnswer<T>
  if (body.status !== 'success') throw new Error(`prometheus ${path}: ${body.error}`)
  return body.data
}

/**
 * Starts Prometheus on a temporary directory and a free port, scraping `targets`
 * (`host:port`, path `/metrics`) every second and evaluating `rules` (YAML text, may be
 * empty) every second; resolves once it is ready.
 */
export async function startPrometheus(opts: {
  targets: string[]
  rules?: string
  bearerToken?: string
}): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'ingest-prometheus-'))
  const port = await freePort()
  const rulesFile = join(dir, 'rules.yml')
  writeFileSync(rulesFile, opts.rules ?? 'groups: []\n')
  const auth =
    opts.bearerToken === undefined
      ? ''
      : `    authorization:\n      credentials: ${opts.bearerToken}\n`
  writeFileSync(
    join(dir, 'prometheus.yml'),
    `global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\n  evaluation_interval: 1s\n` +
      `rule_files:\n  - ${rulesFile}\n` +
      `scrape_configs:\n  - job_name: ingest\n${auth}    static_configs:\n` +
      `      - targets: [${opts.targets.map((t) => `'${t}'`).join(', ')}]\n`,
  )
  const url = `http://127.0.0.1:${port}`
  let output = ''
  const child: ChildProcess = spawn(
    'prometheus',
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  child.stdout?.on('data', (b: Buffer) => {
    output += b.toString()
  })
  child.stderr?.on('data', (b: Buffer) => {
    output += b.toString()
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM')
    await exited
    rmSync(dir, { recursive: true, force: true })
  }
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) {
      rmSync(dir, { recursive: true, force: true })
      throw new Error(`prometheus exited: ${output}`)
    }
    const ready = await fetch(`${url}/-/ready`).then(
      (r) => r.status === 200,
      () => false,
    )
    if (ready) break
    if (i > 600) {
      await stop()
      throw new Error(`prometheus did not become ready: ${output}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  return {
    url,
    query: async (promql) => {
      const data = await api<{
        result: { metric: Record<string, string>; value: [number, string] }[]
      }>(url, `/api/v1/query?query=${encodeURIComponent(promql)}`)
      return data.result.map((r) => [r.metric, Number(r.value[1])])
    },
    alerts: async () => {
      const data = await api<{
        alerts: { labels: Record<string, string>; state: string }[]
      }>(url, '/api/v1/alerts')
      return data.alerts.map((a) => ({
        name: a.labels['alertname'] ?? '',
        state: a.state,
        labels: a.labels,
      }))
    },
    targets: async () => {
      const data = await api<{ activeTargets: { scrapeUrl: string; health: string }[] }>(
        url,
        '/api/v1/targets',
      )
      return data.activeTargets
    },
    log: () => output,
    stop,
  }
}
