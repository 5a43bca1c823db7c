import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { fixtureEvents } from '../../../scripts/payload-dictionary/corpus.ts'
import {
  decodePayload,
  encodePayload,
  PAYLOAD_DICTIONARY_V1,
  PayloadUnreadableError,
  readStoredPayload,
} from './payload-codec.ts'

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
