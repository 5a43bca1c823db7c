/**
 * `npx tsx scripts/train-payload-dictionary.ts [--write FILE]`: trains the preset dictionary of
 * the stored-payload codec (server/src/store/payload-codec.ts) on the normalised payloads of
 * every fixture event, and prints, for 2–32 KB dictionaries, the stored bytes and the encode /
 * decode µs of the bench's event (`node-11-error`, part of the training set) and of an event of
 * the same shape from another application (other source lines, paths, modules: not in the
 * training set, what a real installation stores). `--write` writes the 4 KB dictionary as a
 * TypeScript module; a released dictionary never changes (stored rows depend on its bytes), so
 * a new one is a new file and a new format tag.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { deflateRawSync, inflateRawSync } from 'node:zlib'
import { fixtureEvents } from './payload-dictionary/corpus.ts'
import { distinctPayloads, trainDictionary } from './payload-dictionary/train.ts'

const SIZES = [2048, 4096, 8192, 16384, 32768]
const CHOSEN = 4096

/** The bench event with another application's code in it: a sample outside the training set. */
function foreignEvent(bench: string): string {
  const src = readFileSync(new URL('../server/src/store/sqlite/ingest.ts', import.meta.url), 'utf8')
  const lines = src.split('\n')
  const v = JSON.parse(bench) as {
    exception: { values: { type: string; value: string; stacktrace: { frames: object[] } }[] }
    contexts: Record<string, unknown>
    modules: Record<string, string>
    title: string
  }
  const ex = v.exception.values[0]
  if (ex === undefined) throw new Error('the bench event has no exception')
  ex.stacktrace.frames = ex.stacktrace.frames.map((f, n) => {
    const at = 100 + 20 * n
    return {
      ...f,
      filename: `/srv/app/dist/handlers/orders-${n}.js`,
      module: `orders-${n}`,
      function: `handle${n}`,
      pre_context: lines.slice(at, at + 5),
      context_line: lines[at + 5],
      post_context: lines.slice(at + 6, at + 11),
    }
  })
  ex.type = 'TypeError'
  ex.value = "Cannot read properties of undefined (reading 'id')"
  v.title = `TypeError: ${ex.value}`
  v.modules = { express: '4.21.2', pg: '8.13.1', 'body-parser': '1.20.3', debug: '2.6.9' }
  v.contexts['trace'] = {
    trace_id: '0af7651916cd43dd8448eb211c80319c',
    span_id: 'b7ad6b7169203331',
  }
  return JSON.stringify(v)
}

/** Median µs of one call over 15 rounds of 300. */
function micros(f: () => void): number {
  const rounds: number[] = []
  for (let r = 0; r < 15; r++) {
    const t = process.hrtime.bigint()
    for (let i = 0; i < 300; i++) f()
    rounds.push(Number(process.hrtime.bigint() - t) / 300 / 1000)
  }
  rounds.sort((a, b) => a - b)
  return Math.round((rounds[7] ?? 0) * 10) / 10
}

const events = fixtureEvents()
const bench = events.find((e) => e.file.endsWith('event/node-11-error.envelope'))?.payload
if (bench === undefined)
  throw new Error('fixtures/envelopes/event/node-11-error.envelope is missing')
const foreign = foreignEvent(bench)
const samples = distinctPayloads(events)
process.stdout.write(
  `${samples.length} distinct fixture events; bench event ${bench.length} B, other-application event ${foreign.length} B\n`,
)
process.stdout.write(
  `no dictionary (level 6): bench ${deflateRawSync(bench).length} B, other ${deflateRawSync(foreign).length} B\n`,
)
process.stdout.write('dict B | level | bench B | other B | encode µs | decode µs\n')
let chosen: Buffer | undefined
for (const size of SIZES) {
  const dictionary = trainDictionary(samples, { size })
  if (size === CHOSEN) chosen = dictionary
  for (const level of [1, 3, 6, 9]) {
    const input = Buffer.from(bench, 'utf8')
    const enc = deflateRawSync(input, { level, dictionary })
    const other = deflateRawSync(foreign, { level, dictionary }).length
    const e = micros(() => deflateRawSync(input, { level, dictionary }))
    const d = micros(() => inflateRawSync(enc, { dictionary }).toString('utf8'))
    process.stdout.write(
      `${dictionary.length} | ${level} | ${enc.length} | ${other} | ${e} | ${d}\n`,
    )
  }
}
const out = process.argv.indexOf('--write')
const file = out === -1 ? undefined : process.argv[out + 1]
if (file !== undefined && chosen !== undefined) {
  const b64 = chosen.toString('base64').replace(/.{1,96}/g, (l) => `  '${l}' +\n`)
  writeFileSync(
    file,
    `/**\n * Preset dictionary v1 of the stored-payload codec (payload-codec.ts), ${chosen.length} bytes, trained on the\n * fixture events by scripts/train-payload-dictionary.ts. Never edit: stored rows depend on\n * these exact bytes (payload-codec.test.ts pins their SHA-256); a new dictionary is a new file.\n */\nexport const PAYLOAD_DICTIONARY_V1_BASE64 =\n${b64.slice(0, -3)}\n`,
  )
  process.stdout.write(`wrote ${file}\n`)
}
