/**
 * One measured load run: warm-up, then a timed wrk run, with stored events counted before and
 * after (not answers), the server's CPU from /proc deltas and its peak memory.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Counter } from './count.ts'
import { type PgProbeFigures, startPgProbe } from './pg-probe.ts'
import { cpuMs, peakRssMiB } from './server.ts'
import { ENVELOPE, runWrk, type WrkResult, withUser } from './wrk.ts'

/** What is loaded and how stored events are known. */
export interface LoadTarget {
  url: string
  path: string
  /** Several nodes: `host:port` of each. */
  addrs?: string[]
  /** undefined: stored events are taken from 200 answers (a target without a token). */
  counter: Counter | undefined
  /** Server processes to read /proc for (empty: CPU and memory unknown). */
  pids: number[]
  /** The envelope file to post instead of the captured Node SDK error. */
  body?: string
  /** CPU ms the database's processes used so far (PostgreSQL run by the bench only). */
  dbCpuMs?: () => Promise<number>
  /** WAL bytes the database wrote so far (PostgreSQL run by the bench only). */
  dbWalBytes?: () => Promise<number>
  /** `--pg-stats`: the PostgreSQL to probe over the measured run (pg-probe.ts). */
  pgStatsUrl?: string
}

/** Timing of a run. */
export interface LoadShape {
  seconds: number
  warmupSeconds: number
  connections: number
  /** Events spread over this many issues (`--issues`; undefined or 1: one hot issue). */
  issues?: number | undefined
  /** Each event names one of this many users (`--users`; undefined or 0: none). */
  users?: number | undefined
}

/** The figures of one ingest run. */
export interface IngestFigures {
  eventsPerSec: number
  /** Where `stored` comes from: rows in the database, the target's API, or 200 answers. */
  countedFrom: 'database' | 'api' | 'answers'
  stored: number
  answers200: number
  /** Everything the run (warm-up included) got a 200 for, and what was stored meanwhile. */
  answers200Total: number
  storedTotal: number
  failed: number
  p50Ms: number
  p99Ms: number
  maxMs: number
  peakRssMiB: number
  cpuMsPerEvent: number
  coresUsed: number
  generatorCores: number
  /** PostgreSQL's CPU ms per stored event and cores used (undefined on SQLite). */
  dbCpuMsPerEvent?: number | undefined
  dbCores?: number | undefined
  /** PostgreSQL's WAL bytes per stored event (undefined on SQLite). */
  dbWalBytesPerEvent?: number | undefined
  bytesOnDisk: number | undefined
  eventsInDatabase: number | undefined
  bytesPerEvent: number | undefined
  /** Issues in the database after the run (undefined when not counted from the database). */
  issuesInDatabase?: number | undefined
  /** Distinct users of the `user` tag rows after the run (with `--users`, from the database). */
  usersInDatabase?: number | undefined
  /** `--pg-stats`: statements per group commit, waits and lock waits over the measured run. */
  pgStats?: PgProbeFigures | undefined
}

// No process to read (a target without --pid): CPU unknown, printed as n/a.
const sumCpu = (pids: number[]) =>
  pids.length === 0 ? Number.NaN : pids.reduce((n, p) => n + serverCpuMs(p), 0)

/** A server's CPU so far; a server gone from /proc died during the run, and the bench says so. */
function serverCpuMs(pid: number): number {
  try {
    return cpuMs(pid)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw new Error(`server process ${pid} exited during the run`)
    throw err
  }
}
const ok = (w: WrkResult) => w.requests - w.non2xx

/** Polls the count until it stops moving (the last in-flight group commits land). */
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

/** Runs the warm-up and the measured run against an ingest target. */
export async function measureIngest(t: LoadTarget, shape: LoadShape): Promise<IngestFigures> {
  if ((shape.users ?? 0) === 0) return measureWith(t, shape, t.body)
  // The payload with a user is a copy of the target's, removed after the runs.
  const dir = mkdtempSync(join(tmpdir(), 'bench-users-'))
  try {
    return await measureWith(t, shape, withUser(t.body ?? ENVELOPE, dir))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

async function measureWith(
  t: LoadTarget,
  shape: LoadShape,
  body: string | undefined,
): Promise<IngestFigures> {
  const users = shape.users ?? 0
  const base = {
    url: t.url,
    path: t.path,
    connections: shape.connections,
    ...(body === undefined ? {} : { body }),
    ...(shape.issues === undefined ? {} : { issues: shape.issues }),
    ...(users > 0 ? { users } : {}),
  }
  const withAddrs = t.addrs === undefined ? base : { ...base, addrs: t.addrs }
  const before = t.counter === undefined ? 0 : await t.counter.count()
  const warm =
    shape.warmupSeconds > 0 ? await runWrk({ ...withAddrs, seconds: shape.warmupSeconds }) : null
  const start = t.counter === undefined ? 0 : await t.counter.count()
  const cpu0 = sumCpu(t.pids)
  const db0 = await t.dbCpuMs?.()
  const wal0 = await t.dbWalBytes?.()
  const probe = t.pgStatsUrl === undefined ? undefined : await startPgProbe(t.pgStatsUrl)
  const t0 = Date.now()
  const run = await runWrk({ ...withAddrs, seconds: shape.seconds })
  const wallMs = Date.now() - t0
  const probeEnd = t.counter === undefined ? 0 : await t.counter.count()
  const pgStats = await probe?.stop(probeEnd - start)
  const cpu = sumCpu(t.pids) - cpu0
  const db1 = await t.dbCpuMs?.()
  const wal1 = await t.dbWalBytes?.()
  const dbCpu = db0 === undefined || db1 === undefined ? undefined : db1 - db0
  const end = t.counter === undefined ? 0 : await t.counter.count()
  const final = t.counter === undefined ? 0 : await settledCount(t.counter)
  const stored = t.counter === undefined ? ok(run) : end - start
  const answers200Total = ok(run) + (warm === null ? 0 : ok(warm))
  const storedTotal = t.counter === undefined ? answers200Total : final - before
  const bytesOnDisk = t.counter === undefined ? undefined : await t.counter.bytesOnDisk()
  const eventsInDatabase = t.counter?.source === 'database' ? final : undefined
  const issuesInDatabase = await t.counter?.issues?.()
  const usersInDatabase = users > 0 ? await t.counter?.users?.() : undefined
  const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d
  return {
    eventsPerSec: Math.round(stored / run.seconds),
    countedFrom: t.counter?.source ?? 'answers',
    stored,
    answers200: ok(run),
    answers200Total,
    storedTotal,
    failed: run.non2xx + run.socketErrors + run.timeouts,
    p50Ms: round(run.p50Ms, 2),
    p99Ms: round(run.p99Ms, 2),
    maxMs: round(run.maxMs, 2),
    peakRssMiB: t.pids.length === 0 ? Number.NaN : Math.max(...t.pids.map(peakRssMiB)),
    cpuMsPerEvent: round(cpu / Math.max(stored, 1)),
    coresUsed: round(cpu / wallMs, 2),
    generatorCores: round(run.generatorCpuMs / wallMs, 2),
    dbCpuMsPerEvent: dbCpu === undefined ? undefined : round(dbCpu / Math.max(stored, 1)),
    dbCores: dbCpu === undefined ? undefined : round(dbCpu / wallMs, 2),
    ...(wal0 === undefined || wal1 === undefined
      ? {}
      : { dbWalBytesPerEvent: Math.round((wal1 - wal0) / Math.max(stored, 1)) }),
    bytesOnDisk,
    eventsInDatabase,
    bytesPerEvent:
      bytesOnDisk === undefined || eventsInDatabase === undefined || eventsInDatabase === 0
        ? undefined
        : Math.round(bytesOnDisk / eventsInDatabase),
    ...(issuesInDatabase === undefined ? {} : { issuesInDatabase }),
    ...(usersInDatabase === undefined ? {} : { usersInDatabase }),
    ...(pgStats === undefined ? {} : { pgStats }),
  }
}

/** The figures of one run against the bare route. */
export interface BareFigures {
  requestsPerSec: number
  p50Ms: number
  p99Ms: number
  maxMs: number
  peakRssMiB: number
  cpuMsPerRequest: number
  coresUsed: number
  generatorCores: number
}

/** Loads the bare route the same way (same generator, payload, connections). */
export async function measureBare(
  url: string,
  pid: number,
  shape: LoadShape,
): Promise<BareFigures> {
  const o = { url, path: '/api/1/envelope/', connections: shape.connections }
  if (shape.warmupSeconds > 0) await runWrk({ ...o, seconds: shape.warmupSeconds })
  const cpu0 = cpuMs(pid)
  const t0 = Date.now()
  const run = await runWrk({ ...o, seconds: shape.seconds })
  const wallMs = Date.now() - t0
  const cpu = cpuMs(pid) - cpu0
  const n = ok(run)
  return {
    requestsPerSec: Math.round(n / run.seconds),
    p50Ms: Math.round(run.p50Ms * 100) / 100,
    p99Ms: Math.round(run.p99Ms * 100) / 100,
    maxMs: Math.round(run.maxMs * 100) / 100,
    peakRssMiB: peakRssMiB(pid),
    cpuMsPerRequest: Math.round((cpu / Math.max(n, 1)) * 1000) / 1000,
    coresUsed: Math.round((cpu / wallMs) * 100) / 100,
    generatorCores: Math.round((run.generatorCpuMs / wallMs) * 100) / 100,
  }
}
