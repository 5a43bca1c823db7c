/**
 * The load side of `npm run bench`: child servers, the HTTP load generator and the
 * measurements taken from /proc (peak memory, CPU time), kept apart from the bench's options
 * and report.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import http from 'node:http'
import { join } from 'node:path'
import { createInterface } from 'node:readline'

/** A started child server. */
export interface Target {
  url: string
  child: ChildProcess
}

/** Starts a child Node process and waits for its `{"msg":"listening",…}` line. */
export function start(args: string[], env: Record<string, string>): Promise<Target> {
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

/** Stops a child server and waits until it exited (a CPU profile is written on exit). */
export async function stop(target: Target): Promise<void> {
  if (target.child.exitCode !== null) return
  const exited = new Promise((r) => target.child.once('exit', r))
  target.child.kill('SIGTERM')
  await exited
}

/** Peak resident memory of a process, from /proc (Linux). */
export function peakRssMiB(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m?.[1] === undefined ? Number.NaN : Math.round(Number(m[1]) / 1024)
}

/** CPU time (user + system) a process used so far, ms, from /proc (Linux). */
export function cpuMs(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const ticks = Number(fields[11]) + Number(fields[12])
  return (ticks * 1000) / 100
}

/** Real captured SDK envelopes holding one event each. */
export function loadFixtures(): Buffer[] {
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

/** What one load run measured. */
export interface RunResult {
  ok: number
  failed: number
  seconds: number
  perSec: number
  p50: number
  p99: number
  /** CPU time the server spent per successful request, ms (NaN when not measured). */
  cpuMsPerOk: number
}

/** Posts the bodies (fresh event ids each time) over `connections` keep-alive sockets for `ms`. */
export async function load(
  target: Target,
  bodies: Buffer[],
  path: string,
  ms: number,
  connections: number,
): Promise<RunResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections })
  const url = new URL(path, target.url)
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
        url,
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
  const cpu0 = cpuMs(target.child.pid)
  const started = Date.now()
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < end) await one()
    }),
  )
  const seconds = (Date.now() - started) / 1000
  const cpu = cpuMs(target.child.pid) - cpu0
  agent.destroy()
  latencies.sort((a, b) => a - b)
  const pct = (p: number) =>
    Math.round((latencies[Math.floor((latencies.length - 1) * p)] ?? Number.NaN) * 100) / 100
  return {
    ok,
    failed,
    seconds,
    perSec: Math.round(ok / seconds),
    p50: pct(0.5),
    p99: pct(0.99),
    cpuMsPerOk: Math.round((cpu / Math.max(ok, 1)) * 1000) / 1000,
  }
}

/** The median of some numbers (NaN for none). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  if (s.length === 0) return Number.NaN
  const mid = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2
}
