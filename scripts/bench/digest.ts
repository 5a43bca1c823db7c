/**
 * Microbench of the digest step alone (`parseEventJson` + `digestEvent`: JSON.parse, normalise,
 * group, trim, the one JSON.stringify), without HTTP, quota or store, so a change to that step
 * can be measured to a few per cent on a busy machine. Prints CPU µs per event, the median of
 * several rounds, for the bench's event (`fixtures/envelopes/event/node-11-error.envelope`) and
 * for every event payload in `fixtures/envelopes/**`.
 *
 * Usage (no npm needed; it runs the build, as the server does, so build first):
 *   npx tsc -b server && node --import tsx scripts/bench/digest.ts [--rounds 7] [--ms 400] [--root DIR]…
 * Each `--root` is a checkout whose `server/dist` is measured (default: this one), e.g. an
 * unpacked `git archive` of the old commit with `node_modules` linked and built: the versions
 * run alternately in one process, so load on the machine hits them alike. Profile with
 * `node --cpu-prof --cpu-prof-dir=DIR --import tsx scripts/bench/digest.ts`. The build, not
 * the sources through tsx: tsx wraps every closure in a `__name` call that the build lacks.
 * `--privacy-off` adds, after each root, the same root with the project's data scrubbing and
 * inbound filters off (the default digest has them on), so their cost is a ratio of one run.
 * `--client` measures a client event's digest instead (`digestPayload`: the inbound filters,
 * the clock correction and the time bound too), under an envelope header whose `sent_at` is
 * the receive time, as a stock SDK's on a right clock; `--drift-ms N` puts it N ms earlier
 * (from 3300000, every event is corrected for the sender's clock, event/clock.ts).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { parseEnvelope } from '../../server/src/ingest/envelope.ts'
import { BENCH_KEY, BENCH_PROJECT } from './bench-scope.ts'
import { median } from './report.ts'

const { values: opts } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    ms: { type: 'string', default: '400' },
    root: { type: 'string', multiple: true },
    'privacy-off': { type: 'boolean', default: false },
    client: { type: 'boolean', default: false },
    'drift-ms': { type: 'string', default: '0' },
  },
})

/** The bench's event: a stock Node SDK error, 4 KiB. */
const BENCH_EVENT = 'fixtures/envelopes/event/node-11-error.envelope'

/** One event item of a fixture envelope. */
interface CorpusEvent {
  file: string
  payload: Buffer
  headerId: unknown
}

function envelopeFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return envelopeFiles(path)
    return name.endsWith('.envelope') ? [path] : []
  })
}

/** Payloads the handler would refuse with a 400 (`manual-event-payload-not-json`) are left out. */
function isJsonObject(payload: Buffer): boolean {
  try {
    const v: unknown = JSON.parse(payload.toString('utf8'))
    return v !== null && typeof v === 'object' && !Array.isArray(v)
  } catch {
    return false
  }
}

/** Every `event` item of every fixture envelope that parses and digests. */
function loadCorpus(root: string): CorpusEvent[] {
  const events: CorpusEvent[] = []
  for (const path of envelopeFiles(join(root, 'fixtures/envelopes')).sort()) {
    let envelope: ReturnType<typeof parseEnvelope>
    try {
      envelope = parseEnvelope(readFileSync(path))
    } catch {
      continue
    }
    for (const item of envelope.items) {
      if (item.header.type !== 'event' || !isJsonObject(item.payload)) continue
      events.push({
        file: relative(root, path),
        payload: item.payload,
        headerId: envelope.header['event_id'],
      })
    }
  }
  return events
}

type Digest = (events: readonly CorpusEvent[]) => number

/** Loads a checkout's digest step; the loop mirrors `handleEventItem` (parse, id, digest). */
async function loadDigest(root: string, privacyOff = false): Promise<Digest> {
  const items = await import(resolve(root, 'server/dist/ingest/items/event.js'))
  const ids = await import(resolve(root, 'server/dist/event/normalize.js'))
  const { IngestContext } = await import(resolve(root, 'server/dist/ingest/context.js'))
  const parse = items.parseEventJson as (p: Buffer) => Record<string, unknown>
  const digest = items.digestEvent as (
    raw: Record<string, unknown>,
    ctx: unknown,
    id?: string,
  ) => { row: { payload: string } }
  const eventId = ids.normalizeEventId as (v: unknown) => string | undefined
  const project = BENCH_PROJECT
  const key = BENCH_KEY
  const off = {
    scrub: false,
    scrubDefaults: false,
    sensitiveFields: [],
    safeFields: [],
    scrubIp: false,
    filters: {
      localhost: false,
      browserExtensions: false,
      legacyBrowsers: false,
      webCrawlers: false,
      errorMessages: [],
      releases: [],
      clientIps: [],
    },
  }
  const received = 1_763_800_000_000
  const sentAt = new Date(received - Number(opts['drift-ms'])).toISOString()
  const ctx = new IngestContext(
    { project, key, ...(privacyOff ? { privacy: off } : {}) },
    received,
    opts.client ? { sent_at: sentAt } : {},
  )
  if (opts.client) {
    const client = items.digestPayload as (
      payload: Uint8Array,
      scope: unknown,
      headerId: string | undefined,
    ) => { payload: string } | { filtered: string }
    return (events) => {
      let bytes = 0
      for (const e of events) {
        const r = client(e.payload, ctx, eventId(e.headerId))
        bytes += 'filtered' in r ? 0 : r.payload.length
      }
      return bytes
    }
  }
  return (events) => {
    let bytes = 0
    for (const e of events) {
      const raw = parse(e.payload)
      bytes += digest(raw, ctx, eventId(e.headerId) ?? eventId(raw['event_id'])).row.payload.length
    }
    return bytes
  }
}

/**
 * CPU µs per event of one round of at least `ms` ms of CPU time. Process CPU time, not wall
 * time: on the shared machine wall time mostly measures how long other processes held the core.
 */
function round(digest: Digest, events: readonly CorpusEvent[], ms: number): number {
  let n = 0
  let sink = 0
  const start = process.cpuUsage()
  let used = 0
  // Enough events between two clock reads that reading the clock costs nothing measurable.
  const batch = Math.ceil(200 / events.length)
  while (used < ms * 1000) {
    for (let i = 0; i < batch; i++) sink += digest(events)
    n += batch * events.length
    const d = process.cpuUsage(start)
    used = d.user + d.system
  }
  if (sink < 0) throw new Error('unreachable: keeps the result alive')
  return used / n
}

const here = resolve(import.meta.dirname, '../..')
const given = (opts.root ?? [here]).map((r) => resolve(r))
const roots = opts['privacy-off'] ? given.flatMap((r) => [r, `${r} (privacy off)`]) : given
const corpus = loadCorpus(here)
const bench = corpus.filter((e) => e.file === BENCH_EVENT)
if (bench.length !== 1) throw new Error(`${BENCH_EVENT}: expected one event item`)
const rounds = Number(opts.rounds)
const ms = Number(opts.ms)
const digests = await Promise.all(
  roots.map((r) =>
    r.endsWith(' (privacy off)')
      ? loadDigest(r.slice(0, -' (privacy off)'.length), true)
      : loadDigest(r),
  ),
)
// Warm-up: every version over everything, long enough for the optimising compiler.
for (const d of digests) for (let i = 0; i < 3; i++) round(d, corpus, ms)

const times = roots.map(() => ({ bench: [] as number[], corpus: [] as number[] }))
// Alternate the versions within each round, so load on the machine hits both alike.
for (let r = 0; r < rounds; r++) {
  digests.forEach((d, i) => {
    times[i]?.bench.push(round(d, bench, ms))
    times[i]?.corpus.push(round(d, corpus, ms))
  })
}
console.log(`${corpus.length} event payloads in fixtures/envelopes; ${rounds} rounds of ${ms} ms`)
const fmt = (xs: number[]): string =>
  `${median(xs).toFixed(2)} µs (min ${Math.min(...xs).toFixed(1)}; ${xs.map((x) => x.toFixed(1)).join(' ')})`
roots.forEach((root, i) => {
  const t = times[i]
  if (t === undefined) return
  console.log(`${relative(process.cwd(), root) || '.'}:`)
  console.log(`  bench event (node-11-error): ${fmt(t.bench)}`)
  console.log(`  whole corpus, per event:     ${fmt(t.corpus)}`)
})
// Per-round ratios to the first root: the load on the machine cancels within a round.
const first = times[0]
times.slice(1).forEach((t, i) => {
  if (first === undefined) return
  const ratio = (xs: number[], base: number[]): string =>
    median(xs.map((x, r) => x / (base[r] ?? Number.NaN))).toFixed(3)
  console.log(
    `${relative(process.cwd(), roots[i + 1] ?? '') || '.'} / first root, median of per-round ratios: ` +
      `bench event ${ratio(t.bench, first.bench)}, corpus ${ratio(t.corpus, first.corpus)}`,
  )
})
