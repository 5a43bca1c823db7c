/** The bench's printed lines and the medians of interleaved runs. */
import type { BareFigures, IngestFigures } from './measure.ts'
import type { OverloadFigures } from './overload.ts'

/** The median of some numbers (NaN for none). */
export function median(xs: number[]): number {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b)
  if (s.length === 0) return Number.NaN
  const mid = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2
}

/** Field by field: the median of numbers, the first run's value for anything else. */
export function medianOf<T extends object>(runs: T[]): T {
  const first = runs[0]
  if (first === undefined) throw new Error('no runs')
  const out: Record<string, unknown> = { ...(first as Record<string, unknown>) }
  for (const [k, v] of Object.entries(first)) {
    if (typeof v === 'number') {
      out[k] =
        Math.round(median(runs.map((r) => (r as Record<string, unknown>)[k] as number)) * 100) / 100
    }
  }
  return out as T
}

const n = (x: number | undefined) =>
  x === undefined || Number.isNaN(x) ? 'n/a' : x.toLocaleString('en-US')

/** One line of ingest figures; says where the stored count came from. */
export function formatIngest(f: IngestFigures): string {
  return [
    `${n(f.eventsPerSec)} events/s stored (counted from ${f.countedFrom}: ${n(f.stored)} stored, ${n(f.answers200)} answered 200, ${n(f.failed)} failed)`,
    `p50 ${n(f.p50Ms)} ms, p99 ${n(f.p99Ms)} ms, max ${n(f.maxMs)} ms`,
    `peak RSS ${n(f.peakRssMiB)} MiB`,
    `${n(f.cpuMsPerEvent)} CPU ms/event, ${n(f.coresUsed)} cores (wrk ${n(f.generatorCores)})`,
    ...(f.dbCpuMsPerEvent === undefined
      ? []
      : [
          `PostgreSQL ${n(f.dbCpuMsPerEvent)} CPU ms/event, ${n(f.dbCores ?? Number.NaN)} cores${f.dbWalBytesPerEvent === undefined ? '' : `, ${n(f.dbWalBytesPerEvent)} WAL bytes/event`}`,
        ]),
    `${n(f.bytesPerEvent)} bytes on disk/event (${n(f.eventsInDatabase)} events${f.issuesInDatabase === undefined ? '' : ` in ${n(f.issuesInDatabase)} issues`}${f.usersInDatabase === undefined ? '' : ` by ${n(f.usersInDatabase)} users`})`,
  ].join('; ')
}

/** One line of bare-route figures. */
export function formatBare(f: BareFigures): string {
  return [
    `${n(f.requestsPerSec)} requests/s`,
    `p50 ${n(f.p50Ms)} ms, p99 ${n(f.p99Ms)} ms, max ${n(f.maxMs)} ms`,
    `peak RSS ${n(f.peakRssMiB)} MiB`,
    `${n(f.cpuMsPerRequest)} CPU ms/request, ${n(f.coresUsed)} cores (wrk ${n(f.generatorCores)})`,
  ].join('; ')
}

/** One line of overload figures. */
export function formatOverload(f: OverloadFigures): string {
  return [
    `${f.mode}`,
    `sustainable ${n(f.sustainablePerSec)} events/s, offered ${n(f.offeredPerSec)} requests/s`,
    `accepted ${n(f.acceptedPerSec)} events/s stored (${n(f.acceptedFraction)} of sustainable; ${n(f.answered200PerSec)} × 200/s)`,
    `${n(f.answeredShare)} of the offered rate answered`,
    `${n(f.refusedShare)} of answers 429/503 (${n(f.r429)} × 429, ${n(f.r503)} × 503, ${n(f.otherFailures)} other failures, ${n(f.cutAtEnd)} open at the end)`,
    `accepted p50 ${n(f.acceptedP50Ms)} ms, p99 ${n(f.acceptedP99Ms)} ms, max ${n(f.acceptedMaxMs)} ms (probe p99 ${n(f.probeP99Ms)} ms)`,
    `server RSS peak ${n(f.peakRssMiB)} MiB, ${n(f.serverCores)} cores`,
    `recovered to normal latency (≤ ${n(f.normalLatencyMs)} ms) ${f.recoverySeconds === undefined ? 'not within 30 s' : `${n(f.recoverySeconds)} s`} after the overload ended`,
  ].join('; ')
}
