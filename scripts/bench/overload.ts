/**
 * `--overload`: first the sustainable rate (a normal run), then 500 connections — a constant
 * 3× that rate when `wrk2` is installed, else closed-loop (500 connections offer as much as the
 * server answers; Debian has no wrk2) — while a probe client sends one request every 50 ms to
 * see what an accepted request waits and when latency is normal again after the overload ends.
 */
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { Instance } from './instance.ts'
import { type LoadShape, measureIngest } from './measure.ts'
import { peakRssMiB } from './server.ts'
import { ENVELOPE, envelopeEventId, hasBinary, runWrk } from './wrk.ts'

/** What the overload run measured. */
export interface OverloadFigures {
  mode: string
  sustainablePerSec: number
  acceptedPerSec: number
  acceptedFraction: number
  storedPerSec: number | undefined
  refusedShare: number
  r429: number
  r503: number
  otherFailures: number
  acceptedP99Ms: number
  allP99Ms: number
  peakRssMiB: number
  /** The latency counted as normal: the sustainable run's p99. */
  normalLatencyMs: number
  recoverySeconds: number | undefined
}

/** One probe request: when it ended, how long it took, its status (0: no answer). */
export interface Sample {
  at: number
  ms: number
  status: number
}

const CONNECTIONS = 500
const PROBE_EVERY_MS = 50
const RECOVERY_BUDGET_MS = 30_000
const RECOVERED_AFTER = 10

/**
 * Sends one request every PROBE_EVERY_MS (one at a time, its own connection) until stopped:
 * what a client sees while something else happens (overload, a slow page view).
 */
export function startProbe(url: string): { samples: Sample[]; stop(): Promise<void> } {
  const template = readFileSync(ENVELOPE, 'latin1')
  const oldId = envelopeEventId()
  const samples: Sample[] = []
  let running = true
  const loop = (async () => {
    while (running) {
      const t0 = performance.now()
      let status = 0
      try {
        const res = await fetch(url, {
          method: 'POST',
          body: Buffer.from(template.replaceAll(oldId, randomBytes(16).toString('hex')), 'latin1'),
          signal: AbortSignal.timeout(60_000),
        })
        await res.arrayBuffer()
        status = res.status
      } catch {
        status = 0
      }
      const ms = performance.now() - t0
      samples.push({ at: Date.now(), ms, status })
      await new Promise((r) => setTimeout(r, Math.max(0, PROBE_EVERY_MS - ms)))
    }
  })()
  return {
    samples,
    stop: async () => {
      running = false
      await loop
    },
  }
}

const p99 = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? Number.NaN : (s[Math.floor((s.length - 1) * 0.99)] as number)
}
const r2 = (x: number) => Math.round(x * 100) / 100

/** Measures the sustainable rate, then the overload, then the recovery. */
export async function measureOverload(inst: Instance, shape: LoadShape): Promise<OverloadFigures> {
  const sustainable = await measureIngest(inst.target, shape)
  const rate = hasBinary('wrk2') ? sustainable.eventsPerSec * 3 : undefined
  const probe = startProbe(new URL(inst.target.path, inst.target.url).href)
  const counter = inst.target.counter
  const before = counter === undefined ? 0 : await counter.count()
  const start = Date.now()
  const run = await runWrk({
    url: inst.target.url,
    path: inst.target.path,
    ...(inst.target.addrs === undefined ? {} : { addrs: inst.target.addrs }),
    connections: CONNECTIONS,
    seconds: shape.seconds,
    countStatus: true,
    ...(rate === undefined ? {} : { rate }),
  })
  const end = Date.now()
  const stored = counter === undefined ? undefined : (await counter.count()) - before
  const peak =
    inst.target.pids.length === 0 ? Number.NaN : Math.max(...inst.target.pids.map(peakRssMiB))
  // Recovery: the first probe answer after the end from which RECOVERED_AFTER answers in a row
  // are 200 within the normal latency.
  const normal = sustainable.p99Ms
  let recoverySeconds: number | undefined
  while (Date.now() < end + RECOVERY_BUDGET_MS && recoverySeconds === undefined) {
    await new Promise((r) => setTimeout(r, 200))
    const after = probe.samples.filter((s) => s.at >= end)
    for (let i = 0; i + RECOVERED_AFTER <= after.length; i++) {
      const run10 = after.slice(i, i + RECOVERED_AFTER)
      if (run10.every((s) => s.status === 200 && s.ms <= normal)) {
        recoverySeconds = r2(((after[i] as Sample).at - end) / 1000)
        break
      }
    }
  }
  await probe.stop()
  const during = probe.samples.filter((s) => s.at >= start && s.at <= end)
  const status = run.status ?? { ok: 0, r429: 0, r503: 0, other: 0 }
  const answered = status.ok + status.r429 + status.r503 + status.other
  const acceptedPerSec = Math.round(status.ok / run.seconds)
  return {
    mode:
      rate === undefined
        ? `${CONNECTIONS} connections closed-loop (wrk2 not installed: no constant rate)`
        : `${CONNECTIONS} connections at a constant ${rate} requests/s (wrk2, 3× sustainable)`,
    sustainablePerSec: sustainable.eventsPerSec,
    acceptedPerSec,
    acceptedFraction: r2(acceptedPerSec / sustainable.eventsPerSec),
    storedPerSec: stored === undefined ? undefined : Math.round(stored / run.seconds),
    refusedShare: answered === 0 ? Number.NaN : r2((status.r429 + status.r503) / answered),
    r429: status.r429,
    r503: status.r503,
    otherFailures: status.other + run.socketErrors + run.timeouts,
    acceptedP99Ms: r2(p99(during.filter((s) => s.status === 200).map((s) => s.ms))),
    allP99Ms: r2(run.p99Ms),
    peakRssMiB: peak,
    normalLatencyMs: r2(normal),
    recoverySeconds,
  }
}
