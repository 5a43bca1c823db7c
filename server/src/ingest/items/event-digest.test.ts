import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { normalizeEventId } from '../../event/normalize.ts'
import { IngestContext } from '../context.ts'
import { parseEnvelope } from '../envelope.ts'
import { digestEvent, parseEventJson } from './event.ts'

/**
 * Pins what the digest step stores, byte for byte: the stored payload, the grouping hash (stored
 * in `grouphashes`, so a changed value would split existing issues), title, culprit and the row's
 * other columns, for every event of `fixtures/envelopes/**` and a set of hostile events that
 * reach every bound of `event/bounds.ts`. Work on the hot path must keep them identical.
 * `UPDATE_PINS=1 npx vitest run --project unit server/src/ingest/items/event-digest.test.ts`
 * rewrites the pins after a deliberate change (review the diff).
 */

const ROOT = join(import.meta.dirname, '../../../..')
const PINS = join(import.meta.dirname, 'event-digest.pins.json')
const BENCH_EVENT = 'fixtures/envelopes/event/node-11-error.envelope'

const project = { id: 7, slug: 'p', name: 'p', createdAt: 0, teamId: 1 }
const key = (component: string | null) => ({
  id: 3,
  projectId: 7,
  publicKey: 'fixture0000000000000000000000000',
  label: 'Default',
  component,
  createdAt: 0,
  revokedAt: null,
})
const ctxOf = (component: string | null = null): IngestContext =>
  new IngestContext({ project, key: key(component) }, 1_763_800_000_123, {})

function envelopeFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return envelopeFiles(path)
    return name.endsWith('.envelope') ? [path] : []
  })
}

/** Raw text of every event item in the fixture envelopes, with the header's event id. */
function corpus(): { name: string; text: string; headerId: unknown }[] {
  const out: { name: string; text: string; headerId: unknown }[] = []
  for (const path of envelopeFiles(join(ROOT, 'fixtures/envelopes')).sort()) {
    let envelope: ReturnType<typeof parseEnvelope>
    try {
      envelope = parseEnvelope(readFileSync(path))
    } catch {
      continue
    }
    envelope.items.forEach((item, i) => {
      if (item.header.type !== 'event') return
      const text = item.payload.toString('utf8')
      try {
        parseEventJson(item.payload)
      } catch {
        return // refused with a 400 before the digest
      }
      out.push({
        name: `${relative(ROOT, path)}#${i}`,
        text,
        headerId: envelope.header['event_id'],
      })
    })
  }
  return out
}

const long = (n: number, c = 'x'): string => c.repeat(n)
const deep = (levels: number): unknown => (levels === 0 ? 'leaf' : { d: deep(levels - 1) })
const wide = (n: number): Record<string, number> =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))
const frame = (i: number, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  filename: `/app/src/mod${i % 7}.js`,
  abs_path: `/app/src/mod${i % 7}.js`,
  function: `fn${i % 5}`,
  lineno: i,
  colno: 3,
  in_app: i % 3 !== 0,
  ...extra,
})

/** Events (as JSON text, so `1e999` and `__proto__` arrive as a client's would) for every bound. */
const HOSTILE: Record<string, string> = {
  oversized: JSON.stringify({
    event_id: 'AB12CD34-0000-4000-8000-0000000000FF',
    timestamp: '2026-11-22T09:34:48.590',
    level: 'WARN',
    platform: 'node',
    release: long(300),
    transaction: long(300, 't'),
    message: `first line\n\n  second 42 line\nthird ${long(9000, 'm')}`,
    tags: { ...wide(205), flag: true, n: 1.5, empty: '', obj: { a: 1 } },
    extra: {
      big: long(9000),
      deep: deep(14),
      wide: wide(230),
      list: Array.from({ length: 230 }, (_, i) => i),
      [long(250, 'K')]: 1,
      [`${long(200, 'D')}a`]: 'first',
      [`${long(200, 'D')}b`]: 'second',
    },
    contexts: { os: { name: 'Linux', version: long(9000, 'v') }, runtime: { name: 'node' } },
    user: { id: 42, email: 'a@b.io', nested: [[[[[[[[[[['x']]]]]]]]]]] },
    request: { url: 'https://x.io/a?b=1', headers: [['A', 'b']], data: { k: long(8193) } },
    breadcrumbs: {
      values: Array.from({ length: 230 }, (_, i) => ({
        timestamp: i % 10 === 0 ? 'not a time' : 1_763_800_000 + i,
        category: 'c',
        message: `m${i}`,
        data: i % 50 === 0 ? { big: long(9000) } : { i },
      })),
    },
    exception: {
      values: [
        { type: 'Inner', value: 'cause 0x1f', stacktrace: { frames: [frame(1), frame(2)] } },
        {
          type: 'Error',
          value: `boom at 2026-11-22T09:34:48Z for bob@x.io\nline two\nline three`,
          mechanism: { type: 'onerror', handled: false, synthetic: false, extra: 1 },
          stacktrace: {
            frames: Array.from({ length: 300 }, (_, i) =>
              frame(i, i === 299 ? { vars: { a: long(9000), b: deep(12), c: wide(210) } } : {}),
            ),
          },
        },
      ],
    },
    fingerprint: ['{{ default }}', '{{ tags.flag }}', 'x'],
    sdk: { name: 'sentry.javascript.node', version: '11.12.0', integrations: ['a'] },
    server_name: 'host',
    dist: 7,
  }),
  unknownKeys:
    '{"message":"hi","toString":"x","constructor":{"a":1},"__proto__":{"polluted":1},' +
    '"valueOf":null,"hasOwnProperty":2,"weird":1e999,"neg":-1e999,"spans":[' +
    Array.from({ length: 210 }, (_, i) => `{"i":${i},"s":"${long(20)}"}`).join(',') +
    '],"deep":' +
    JSON.stringify(deep(9)) +
    ',"str":"' +
    long(8200) +
    '","exception":[{"type":"","value":"   "}],"level":45,"timestamp":1763800000123}',
  legacyShapes: JSON.stringify({
    event_id: 42,
    timestamp: 1e20,
    level: 'Critical',
    platform: long(100, 'p'),
    logentry: { message: 'Order %s failed for %s', params: [1231, 'bob', { deep: deep(12) }] },
    exception: { type: 'ValueError', value: 'bad value 1234', module: 'app.orders' },
    threads: [
      { id: 1, name: 'main', crashed: false, stacktrace: { frames: [frame(1)] } },
      {
        id: long(80, '9'),
        crashed: true,
        current: true,
        stacktrace: { frames: [frame(4, { platform: 'java', module: 'com.x.Y$$Lambda$12/0x1' })] },
      },
      'not an object',
    ],
    stacktrace: { frames: [frame(9), 'junk', null] },
    tags: [['a', 'b'], ['n', 3], ['bad'], 'junk', [1, 2], ['t', true]],
    fingerprint: ['{{ type }}', '{{ function }}', long(2000, 'f'), 3, null],
    breadcrumbs: [{ timestamp: '2026-11-22T09:34:48+02:00', message: 'x', level: 'info' }],
    user: 'not an object',
    extra: [1, 2],
    sdk: 'junk',
  }),
  messageOnly: JSON.stringify({
    message: { formatted: 'Payment declined for order 77', message: '  ' },
    threads: { values: [{ id: 'a', current: true, stacktrace: { frames: [frame(0)] } }] },
    culprit: 'client culprit',
    title: 'client title',
    errors: [{ type: 'client', name: 'x' }],
  }),
  nothing: '{}',
  atTheBounds:
    '{"message":"m","extra":{"__proto__":{"a":1},"x":{"__proto__":5,"y":1},"inf":[1e999,-1e999],' +
    `"exact":${JSON.stringify({ s: long(8192), w: wide(200), l: Array.from({ length: 200 }, () => 0), d: deep(8) })},` +
    `"over":${JSON.stringify({ s: long(8193), w: wide(201), l: Array.from({ length: 201 }, () => 0), d: deep(9) })},` +
    `"${long(200, 'k')}":1},"contexts":{"a":{"b":${JSON.stringify(deep(8))}}},` +
    `"user":{"__proto__":null},"request":{"data":{"k":"v"},"${long(201, 'r')}":1},` +
    '"breadcrumbs":[{"data":{"__proto__":{"p":1}}}],"sdk":{"name":1}}',
}

/** What is pinned per event: the row without the payload, and the payload or its sha256. */
function pinOf(text: string, headerId: unknown, full: boolean, component: string | null) {
  const raw = parseEventJson(Buffer.from(text))
  const id = normalizeEventId(headerId) ?? normalizeEventId(raw['event_id'])
  const { row } = digestEvent(raw, ctxOf(component), id)
  // digestEvent serialises (text); only the digest threads encode.
  if (typeof row.payload !== 'string') throw new Error('digestEvent returned an encoded payload')
  // Events without an id get a random one: pin the rest of the payload, not that id.
  const payload = id === undefined ? row.payload.replace(row.eventId, '<random>') : row.payload
  const { payload: _payload, eventId, ...columns } = row
  return {
    ...columns,
    eventId: id === undefined ? '<random>' : eventId,
    ...(full
      ? { payload: JSON.parse(payload) as unknown }
      : { payloadSha256: createHash('sha256').update(payload).digest('hex') }),
  }
}

function currentPins(): Record<string, unknown> {
  const pins: Record<string, unknown> = {}
  for (const e of corpus()) {
    const full = e.name.startsWith(`${BENCH_EVENT}#`)
    pins[e.name] = pinOf(e.text, e.headerId, full, null)
    if (full) pins[`${e.name} (component key)`] = pinOf(e.text, e.headerId, false, 'checkout')
  }
  for (const [name, text] of Object.entries(HOSTILE)) {
    pins[`hostile:${name}`] = pinOf(text, undefined, false, 'checkout')
  }
  return pins
}

describe('digestEvent stores exactly what it stored before', () => {
  const pins = currentPins()
  if (process.env['UPDATE_PINS'] === '1') writeFileSync(PINS, `${JSON.stringify(pins, null, 2)}\n`)
  const expected = JSON.parse(readFileSync(PINS, 'utf8')) as Record<string, unknown>

  it('covers the bench event, every fixture event and the hostile set', () => {
    expect(Object.keys(pins).sort()).toEqual(Object.keys(expected).sort())
    expect(Object.keys(pins).length).toBeGreaterThan(25)
  })

  it.each(Object.keys(expected))('%s', (name) => {
    expect(pins[name]).toEqual(expected[name])
  })

  it('stores the bench event with its grouping hash', () => {
    const bench = pins[`${BENCH_EVENT}#0`] as { hash: string; payload: { title: string } }
    expect(bench.hash).toMatch(/^[0-9a-f]{64}$/)
    expect(bench.payload.title).toBe('Error: conformance boom')
  })
})
