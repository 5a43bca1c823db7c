/**
 * Microbench of source-map resolution alone, without HTTP, quota or store writes, so a change to
 * it can be measured to a few per cent on a busy machine (the HTTP figure of `npm run bench --
 * --sourcemaps` swings by more than the change). The bench's minified browser event (built by
 * esbuild, debug IDs injected by stock sentry-cli 3, scripts/bench/sourcemaps.ts) goes through:
 *
 *   plain     the digest of the event as it came (a project without bundles pays nothing more)
 *   deferred  the default: the ingest hook only marks the event; the digest on the store's write
 *             parses it, resolves its frames and digests the parsed event (`resolveParsed`)
 *   eager     with digest threads: the ingest hook parses, resolves and re-serialises the event
 *             on the main thread, then the digest parses the result
 *
 * CPU µs per event, the median of alternating rounds, and each ratio to `plain` (the events/s
 * ratio when CPU bound). The maps come from an in-memory artifact store that counts its reads:
 * after the first event every lookup must be a cache hit, which the bench checks. It runs the
 * build, as the server does:
 *   npx tsc -b server && node --import tsx scripts/bench/sourcemap-resolve.ts [--rounds 7] [--ms 400]
 * Then the first resolution of a ~6 MiB map (inflate, parse, lookup) and the next ones.
 * Profile with `node --cpu-prof --cpu-prof-dir=DIR --import tsx scripts/bench/sourcemap-resolve.ts`.
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { deflateRawSync } from 'node:zlib'
import { BENCH_KEY, BENCH_PROJECT } from './bench-scope.ts'
import { median } from './report.ts'
import { browserEvent, buildApp } from './sourcemaps.ts'

const { values: opts } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    ms: { type: 'string', default: '400' },
  },
})

const dist = resolve(import.meta.dirname, '../../server/dist')
const { SourceMapResolver } = await import(`${dist}/ingest/source-maps/resolver.js`)
const { digestPayload } = await import(`${dist}/ingest/items/event.js`)
const { IngestContext } = await import(`${dist}/ingest/context.js`)

const app = buildApp(0)
const map = readFileSync(`${app.out}/app.min.js.map`)
const stored = { bundleId: 1, url: '~/assets/app.min.js.map', data: deflateRawSync(map) }
const reads = { maps: 0 }
/** The artifact store's read side, in memory (the lookups resolution makes, counted). */
const store = {
  projectHasArtifacts: async () => true,
  sourceMapByDebugId: async (_p: number, id: string) => {
    reads.maps++
    return id === app.debugId ? stored : undefined
  },
  sourceMapByUrl: async () => {
    reads.maps++
    return undefined
  },
  touchArtifactBundles: async () => {},
}
const log = { warn: (o: object, m: string) => console.warn(m, o) }
const eagerResolver = new SourceMapResolver(store, { maxBytes: 64 << 20, log })
const deferredResolver = new SourceMapResolver(store, { maxBytes: 64 << 20, log, deferred: true })
const project = BENCH_PROJECT
const key = BENCH_KEY
const payload = Buffer.from(JSON.stringify(browserEvent(app, 'a'.repeat(32))), 'utf8')

type Step = () => Promise<string>
const text = (row: { payload: unknown } | { filtered: string }): string =>
  'filtered' in row ? '' : String(row.payload)

const plain: Step = async () => {
  const ctx = new IngestContext({ project, key }, 1_763_800_000_000, {})
  return text(digestPayload(payload, ctx, undefined))
}

const deferred: Step = async () => {
  const ctx = new IngestContext({ project, key }, 1_763_800_000_000, {})
  ctx.queueDigest(payload, undefined)
  await deferredResolver.resolveQueued(ctx)
  const mark = ctx.sourceMaps
  if (mark === undefined) throw new Error('the deferred resolver did not mark the event')
  const parsed = await deferredResolver.resolveParsed(1, payload, mark)
  return text(digestPayload(payload, ctx, undefined, parsed))
}

const eager: Step = async () => {
  const ctx = new IngestContext({ project, key }, 1_763_800_000_000, {})
  ctx.queueDigest(payload, undefined)
  await eagerResolver.resolveQueued(ctx)
  const d = ctx.digests[0]
  if (d === undefined) throw new Error('the queued event went missing')
  return text(digestPayload(d.payload, ctx, undefined))
}

/** CPU µs per event of one round of at least `ms` ms of CPU time (process CPU, not wall time). */
async function round(step: Step, ms: number): Promise<number> {
  let n = 0
  let sink = 0
  const start = process.cpuUsage()
  let used = 0
  while (used < ms * 1000) {
    for (let i = 0; i < 50; i++) sink += (await step()).length
    n += 50
    const d = process.cpuUsage(start)
    used = d.user + d.system
  }
  if (sink < 0) throw new Error('unreachable: keeps the result alive')
  return used / n
}

const sizes = { plain: (await plain()).length, deferred: (await deferred()).length }
const eagerText = await eager()
if (!eagerText.includes('explodeWithOriginalName') || eagerText.length !== sizes.deferred) {
  throw new Error('eager and deferred resolution stored different events')
}
const mapReads = reads.maps
const steps = { plain, deferred, eager }
const rounds = Number(opts.rounds)
const ms = Number(opts.ms)
for (let i = 0; i < 2; i++) for (const s of Object.values(steps)) await round(s, ms)
const times: Record<keyof typeof steps, number[]> = { plain: [], deferred: [], eager: [] }
for (let r = 0; r < rounds; r++) {
  for (const [name, s] of Object.entries(steps)) {
    times[name as keyof typeof steps].push(await round(s, ms))
  }
}
if (reads.maps !== mapReads) {
  throw new Error(`the map cache missed: ${reads.maps - mapReads} store reads after the first`)
}
const fmt = (xs: number[]): string =>
  `${median(xs).toFixed(2)} µs (min ${Math.min(...xs).toFixed(1)}; ${xs.map((x) => x.toFixed(1)).join(' ')})`
console.log(
  `minified browser event ${payload.length} bytes, map ${map.length} bytes; stored payload ${sizes.plain} chars plain, ${sizes.deferred} resolved; ${rounds} rounds of ${ms} ms; map store reads ${reads.maps} (2 resolvers)`,
)
for (const [name, xs] of Object.entries(times)) {
  const ratio = median(xs.map((x, i) => (times.plain[i] ?? Number.NaN) / x))
  console.log(`${name.padEnd(9)} ${fmt(xs)}; plain/${name} ${ratio.toFixed(3)}`)
}

// The first event needing a ~6 MiB map: the store read is in memory here, so this is the
// inflate, parse and lookup the resolving thread pays once (then the map is cached).
const big = buildApp(22_000)
const bigMap = readFileSync(`${big.out}/app.min.js.map`)
const bigStored = { bundleId: 2, url: '~/assets/app.min.js.map', data: deflateRawSync(bigMap) }
const bigResolver = new SourceMapResolver(
  { ...store, sourceMapByDebugId: async () => bigStored },
  { maxBytes: 128 << 20, log, deferred: true },
)
const bigPayload = Buffer.from(JSON.stringify(browserEvent(big, 'b'.repeat(32))), 'utf8')
const timeOne = async (): Promise<number> => {
  const t0 = performance.now()
  const e = await bigResolver.resolveParsed(1, bigPayload, { uploads: 0, removals: 0 })
  const ms = performance.now() - t0
  if (!JSON.stringify(e).includes('explodeWithOriginalName')) throw new Error('big map unresolved')
  return ms
}
const firstMs = await timeOne()
const next: number[] = []
for (let i = 0; i < 20; i++) next.push(await timeOne())
console.log(
  `big map ${(bigMap.length / 1024 / 1024).toFixed(1)} MiB: first resolution ${firstMs.toFixed(0)} ms (inflate, parse, lookup), then median ${median(next).toFixed(3)} ms; cache holds ${(bigResolver.cachedBytes / 1024 / 1024).toFixed(1)} MiB for it`,
)
