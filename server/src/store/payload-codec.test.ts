import { createHash } from 'node:crypto'
import { deflateRawSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { fixtureEvents } from '../../../scripts/payload-dictionary/corpus.ts'
import {
  decodePayload,
  encodePayload,
  PAYLOAD_DICTIONARY_V1,
  PayloadUnreadableError,
  readStoredPayload,
} from './payload-codec.ts'
import { ReusableDeflate } from './reusable-deflate.ts'

describe('stored-payload codec', () => {
  it('keeps dictionary v1 byte for byte: stored rows depend on it', () => {
    expect(PAYLOAD_DICTIONARY_V1.length).toBe(4096)
    expect(createHash('sha256').update(PAYLOAD_DICTIONARY_V1).digest('hex')).toBe(
      '0984b9a48b6c633515778ce6f6d6b6979ebfbfcdedd806e5d3b32d001fb8bef5',
    )
  })

  it('round-trips every fixture event, the bench event in under 400 bytes', () => {
    const events = fixtureEvents()
    expect(events.length).toBeGreaterThan(20)
    for (const e of events) {
      const stored = encodePayload(e.payload)
      expect(decodePayload(stored), e.file).toBe(e.payload)
    }
    const bench = events.find((e) => e.file.endsWith('event/node-11-error.envelope'))
    expect(bench).toBeDefined()
    const stored = encodePayload(bench?.payload ?? '')
    expect(stored[0]).toBe(0x01)
    expect(stored.length).toBeLessThan(400)
  })

  it('round-trips edge strings: empty, non-ASCII, escaped lone surrogates, large, random', () => {
    const big = JSON.stringify({ message: 'x'.repeat(1_000_000), list: [...Array(5000).keys()] })
    let random = ''
    for (let i = 0; i < 5000; i++)
      random += String.fromCodePoint(Math.floor(Math.random() * 0xd7ff))
    const cases = [
      '',
      '{}',
      JSON.stringify({ message: 'grüße 日本語 🙂 \u0000 \\ "' }),
      JSON.stringify({ message: '\ud800 lone \udfff' }),
      big,
      JSON.stringify({ random }),
      'not json at all',
    ]
    for (const c of cases) expect(decodePayload(encodePayload(c))).toBe(c)
    // JSON.stringify escapes a lone surrogate, so the stored bytes are valid UTF-8.
    expect(JSON.stringify({ m: '\ud800' })).toBe('{"m":"\\ud800"}')
    expect(encodePayload(big).length).toBeLessThan(big.length / 50)
  })

  it('compresses exactly as a new deflate stream would, one payload after another', () => {
    // The kept stream is reset between payloads: what it wrote before must not leak into the
    // next one (a short payload after a long one, the same one twice, one past the scratch
    // buffer that takes the one-shot path, then a small one on the kept stream again).
    const events = fixtureEvents().map((e) => e.payload)
    const big = JSON.stringify({ message: 'y'.repeat(200_000) })
    const order = [...events, ...events.slice().reverse(), big, '{"a":"b"}'.repeat(30), ...events]
    for (const json of order) {
      const raw = Buffer.from(json, 'utf8')
      const oneShot = deflateRawSync(raw, { level: 3, dictionary: PAYLOAD_DICTIONARY_V1 })
      const stored = encodePayload(json)
      if (stored[0] === 0x01) expect(stored.subarray(1).equals(oneShot)).toBe(true)
      else expect(oneShot.length + 1).toBeGreaterThanOrEqual(raw.length)
      expect(decodePayload(stored)).toBe(json)
    }
  })

  it('reuses its stream on this Node, and takes the one-shot path past its scratch buffer', () => {
    const d = new ReusableDeflate({ level: 3, dictionary: PAYLOAD_DICTIONARY_V1 })
    const small = Buffer.from(JSON.stringify({ message: 'checkout failed '.repeat(20) }))
    const large = Buffer.from(JSON.stringify({ message: 'z'.repeat(100_000) }))
    const oneShot = (b: Buffer) =>
      deflateRawSync(b, { level: 3, dictionary: PAYLOAD_DICTIONARY_V1 })
    for (const [input, reused] of [
      [small, true],
      [small, true],
      [large, false],
      [small, true],
    ] as const) {
      const out = d.deflate(input, 0x01)
      expect(d.reused).toBe(reused)
      expect(out[0]).toBe(0x01)
      expect(out.subarray(1).equals(oneShot(input))).toBe(true)
    }
  })

  it('keeps a payload compression does not shrink as plain JSON bytes', () => {
    const tiny = '{"a":1}'
    const stored = encodePayload(tiny)
    expect(stored.toString('utf8')).toBe(tiny)
    expect(decodePayload(stored)).toBe(tiny)
  })

  it('reads rows written before the codec: SQLite TEXT and PostgreSQL bytea of the JSON', () => {
    const json = '{"message":"legacy é"}'
    expect(decodePayload(json)).toBe(json)
    expect(decodePayload(Buffer.from(json, 'utf8'))).toBe(json)
    expect(decodePayload(new Uint8Array(Buffer.from(json, 'utf8')))).toBe(json)
  })

  it('refuses an unknown format or corrupt data, and readers show it as unreadable', () => {
    const unknown = Buffer.from([0x02, 1, 2, 3])
    expect(() => decodePayload(unknown)).toThrow(PayloadUnreadableError)
    expect(() => decodePayload(unknown)).toThrow(/unknown format \(first byte 0x02\)/)
    expect(() => decodePayload(Buffer.alloc(0))).toThrow(PayloadUnreadableError)
    const corrupt = Buffer.from([0x01, 0xff, 0xff, 0xff, 0xff])
    expect(() => decodePayload(corrupt)).toThrow(/corrupt/)
    const shown = JSON.parse(readStoredPayload(unknown)) as {
      errors: { type: string; reason: string }[]
    }
    expect(shown.errors[0]?.type).toBe('payload_unreadable')
    expect(shown.errors[0]?.reason).toMatch(/0x02/)
  })
})
