import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseEnvelope } from '../../src/ingest/envelope.ts'

/** A seeded PRNG (mulberry32): the same seed replays the same run. */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** The seed of a randomised test: `FUZZ_SEED` replays one, else a fresh one (printed by the caller). */
export function seedFromEnv(env: Record<string, string | undefined>): number {
  const given = Number(env['FUZZ_SEED'])
  return Number.isInteger(given) && given > 0 ? given : Math.floor(Math.random() * 2 ** 31) + 1
}

const FIXTURES = join(import.meta.dirname, '../../../fixtures/envelopes')

/** The event payloads of every fixture envelope, as JSON objects. */
export function fixtureEvents(): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = []
  for (const dir of readdirSync(FIXTURES)) {
    let files: string[]
    try {
      files = readdirSync(join(FIXTURES, dir)).filter((f) => f.endsWith('.envelope'))
    } catch {
      continue
    }
    for (const f of files) {
      try {
        for (const item of parseEnvelope(readFileSync(join(FIXTURES, dir, f))).items) {
          if (item.header.type !== 'event') continue
          const v: unknown = JSON.parse(item.payload.toString('utf8'))
          if (v !== null && typeof v === 'object' && !Array.isArray(v))
            out.push(v as Record<string, unknown>)
        }
      } catch {
        // Fixtures of broken envelopes are broken on purpose.
      }
    }
  }
  return out
}

/** A marker replaced by deep nesting in the serialised JSON (JSON.stringify would recurse). */
export const DEEP = '__deep_nesting__'

/** Values a hostile or buggy client puts where another type belongs. */
function garbage(rnd: () => number): unknown {
  const pick = Math.floor(rnd() * 18)
  switch (pick) {
    case 0:
      return 1e20
    case 1:
      return '9999999999999'
    case 2:
      return -1
    case 3:
      return null
    case 4:
      return true
    case 5:
      return []
    case 6:
      return {}
    case 7:
      return DEEP
    case 8:
      return 'x'.repeat(20_000)
    case 9:
      return '\u0000\ud800<script>alert(1)</script>\u202e'
    case 10:
      return Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`k${i}`, i]))
    case 11:
      return Array.from({ length: 400 }, (_, i) => ({ timestamp: i % 2 ? 1e20 : 'x', i }))
    case 12:
      return 1.7976931348623157e308
    case 13:
      return { values: [{ timestamp: '9999999999999', data: DEEP }] }
    case 14:
      return 'not-a-date'
    case 15:
      return [
        [1, 2],
        ['a', { b: 'c' }],
      ]
    case 16:
      return { frames: [{ lineno: 'x', vars: DEEP, pre_context: 5 }] }
    default:
      return -0.5
  }
}

/** Every path (list of keys) into a JSON value, up to a depth. */
function paths(v: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []) {
  out.push(prefix)
  if (prefix.length >= 6 || v === null || typeof v !== 'object') return out
  const entries = Array.isArray(v) ? v.map((x, i) => [i, x] as const) : Object.entries(v)
  for (const [k, x] of entries.slice(0, 30)) paths(x, [...prefix, k], out)
  return out
}

const TOP_FIELDS = [
  'timestamp',
  'breadcrumbs',
  'exception',
  'threads',
  'tags',
  'contexts',
  'user',
  'request',
  'extra',
  'fingerprint',
  'logentry',
  'message',
  'level',
  'platform',
  'release',
  'environment',
  'sdk',
  'stacktrace',
]

/** Mutates a copy of an event: 1–4 random fields (known and anywhere inside) get garbage. */
export function mutateEvent(
  event: Record<string, unknown>,
  rnd: () => number,
): Record<string, unknown> {
  const copy = structuredClone(event) as Record<string, unknown>
  const n = 1 + Math.floor(rnd() * 4)
  for (let i = 0; i < n; i++) {
    if (rnd() < 0.5) {
      copy[TOP_FIELDS[Math.floor(rnd() * TOP_FIELDS.length)] ?? 'extra'] = garbage(rnd)
      continue
    }
    const all = paths(copy).filter((p) => p.length > 0)
    const path = all[Math.floor(rnd() * all.length)]
    if (path === undefined) continue
    let target: unknown = copy
    for (const k of path.slice(0, -1)) target = (target as Record<string | number, unknown>)[k]
    if (target !== null && typeof target === 'object') {
      ;(target as Record<string | number, unknown>)[path[path.length - 1] ?? 0] = garbage(rnd)
    }
  }
  return copy
}

/** Serialises an event, expanding the deep-nesting marker into `depth` nested arrays. */
export function serialise(event: Record<string, unknown>, depth = 3000): string {
  return JSON.stringify(event).replaceAll(
    JSON.stringify(DEEP),
    `${'['.repeat(depth)}1${']'.repeat(depth)}`,
  )
}
