/**
 * `--overload`: first the sustainable rate (a normal wrk run), then three times that rate, open
 * loop (oha: a constant rate over at most 500 connections, latencies from when each request was
 * due), while a probe client sends one request every 50 ms to see when latency is normal again
 * after the overload ends. Accepted events are counted in the database.
 */
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { Counter } from './count.ts'
import type { Instance } from './instance.ts'
import { type LoadShape, measureIngest } from './measure.ts'
import { ensureOha, runOpenLoop } from './oha.ts'
import { cpuMs, peakRssMiB } from './server.ts'
import { ENVELOPE, envelopeEventId, withSentAtNow } from './wrk.ts'

/** What the overload run measured. */
export interface OverloadFigures {
  mode: string
  sustainablePerSec: number
  /** The constant rate offered: 3 × sustainable. */
  offeredPerSec: number
  /** Events stored per second of the overload, counted in the database. */
  acceptedPerSec: number
  acceptedFraction: number
  /** 200 answers per second (a check against the database count). */
  answered200PerSec: number
  /**
   * Answers of any status per second over the offered rate: below 1 the server could not even
   * refuse at the offered rate, the rest waited in the generator, and latency correction
   * charges that wait to the accepted requests too.
   */
  answeredShare: number
  refusedShare: number
  r429: number
  r503: number
  otherFailures: number
  /** Requests still open when the run ended (aborted by oha, not counted as failures). */
  cutAtEnd: number
  /** Latency of accepted (200) requests, from when each was due (open loop, corrected). */
  acceptedP50Ms: number
  acceptedP99Ms: number
  acceptedMaxMs: number
  /** p99 of the probe's accepted requests (one request every 50 ms on its own connection). */
  probeP99Ms: number
  peakRssMiB: number
  /** Cores the server used during the overload. */
  serverCores: number
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
  const template = withSentAtNow(readFileSync(ENVELOPE, 'latin1'))
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

/**
 * Measures the sustainable rate, then the open-loop overload at 3× (or at `fixedRate`
 * requests/s), then the recovery.
 */
export async function measureOverload(
  inst: Instance,
  shape: LoadShape,
  fixedRate?: number,
): Promise<OverloadFigures> {
  ensureOha()
  const sustainable = await measureIngest(inst.target, shape)
  const rate = fixedRate ?? sustainable.eventsPerSec * 3
  const url = new URL(inst.target.path, inst.target.url).href
  const probe = startProbe(url)
  const counter = inst.target.counter
  const before = counter === undefined ? 0 : await counter.count()
  const cpu0 = inst.target.pids.reduce((a, p) => a + cpuMs(p), 0)
  const start = Date.now()
  const run = await runOpenLoop({ url, rate, seconds: shape.seconds, connections: CONNECTIONS })
  // oha stops sending at its deadline, then writes its request log: the overload ended here.
  const end = start + shape.seconds * 1000
  const cores =
    (inst.target.pids.reduce((a, p) => a + cpuMs(p), 0) - cpu0) / (Date.now() - start) || 0
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
  // Stored during the overload (the count settles once the last group commits land).
  const stored = counter === undefined ? undefined : (await settledCount(counter)) - before
  const during = probe.samples.filter((s) => s.at >= start && s.at <= end)
  const st = run.status
  const answered = st.ok + st.r429 + st.r503 + st.other
  const accepted = stored === undefined ? st.ok : stored
  const acceptedPerSec = Math.round(accepted / run.seconds)
  return {
    mode: `open loop, a constant ${run.offeredPerSec} requests/s (${fixedRate === undefined ? '3 × sustainable' : 'fixed'}) over at most ${CONNECTIONS} connections (oha, latency corrected)`,
    sustainablePerSec: sustainable.eventsPerSec,
    offeredPerSec: run.offeredPerSec,
    acceptedPerSec,
    acceptedFraction: r2(acceptedPerSec / sustainable.eventsPerSec),
    answered200PerSec: Math.round(st.ok / run.seconds),
    answeredShare: r2(answered / run.seconds / run.offeredPerSec),
    refusedShare: answered === 0 ? Number.NaN : r2((st.r429 + st.r503) / answered),
    r429: st.r429,
    r503: st.r503,
    otherFailures: st.other + run.failed,
    cutAtEnd: run.cutAtEnd,
    acceptedP50Ms: r2(run.acceptedP50Ms),
    acceptedP99Ms: r2(run.acceptedP99Ms),
    acceptedMaxMs: r2(run.acceptedMaxMs),
    probeP99Ms: r2(p99(during.filter((s) => s.status === 200).map((s) => s.ms))),
    peakRssMiB: peak,
    serverCores: r2(cores),
    normalLatencyMs: r2(normal),
    recoverySeconds,
  }
}

/** Polls the count until it stops moving. */
async function settledCount(counter: Counter): Promise<number> {
  let last = await counter.count()
  for (let i = 0; i < 50; i++) {
    await new Promise((r) => setTimeout(r, 200))
    const now = await counter.count()
    if (now === last) return now
    last = now
  }
  return last
}
