import { describe, expect, it } from 'vitest'
import { NEW_PROJECT_PRIVACY, type PrivacySettings } from '../../privacy/settings.ts'
import type { WriteUnit } from '../ingest-store.ts'
import type { EventToWrite } from '../model.ts'
import { decodeUnits, encodeUnits } from './unit-codec.ts'

const event = (eventId: string, payload: string | Uint8Array): EventToWrite => ({
  projectId: 1,
  keyId: 2,
  eventId,
  timestamp: 1_700_000_000_123,
  received: 1_700_000_000_456,
  level: 'error',
  title: 'TypeError: "quoted" \u00e9\u{1f600}',
  culprit: 'app.js in handler',
  type: 'TypeError',
  value: null,
  release: null,
  environment: 'production',
  component: null,
  hash: 'ab'.repeat(32),
  groupingVersion: 'v1',
  payload,
})

describe('unit codec', () => {
  it('round-trips units with ASCII, non-ASCII and empty payloads into one buffer', () => {
    const units: WriteUnit[] = [
      {
        events: [
          event('a'.repeat(32), JSON.stringify({ message: 'plain', n: 1 })),
          event('b'.repeat(32), JSON.stringify({ message: 'caf\u00e9 \u{1f600} \u4e2d\n"x"\\' })),
          // JSON.stringify escapes a lone surrogate, so it survives UTF-8.
          event('c'.repeat(32), JSON.stringify({ broken: '\ud800' })),
          event('d'.repeat(32), ''),
        ],
        outcomes: [
          {
            projectId: 1,
            keyId: 2,
            at: 5,
            outcome: 'filtered',
            reason: 'x',
            category: 'error',
            quantity: 3,
          },
        ],
      },
      { events: [], outcomes: [] },
      { events: [event('e'.repeat(32), '{"k":"\u00fc"}')], outcomes: [] },
    ]
    const ab = encodeUnits(units)
    expect(ab).toBeInstanceOf(ArrayBuffer)
    expect(decodeUnits(ab)).toEqual(units)
  })

  it('keeps a payload in its stored form (bytes) as bytes, beside text payloads', () => {
    const stored = Uint8Array.from([0x01, 0x00, 0xff, 0x7b, 0x0a])
    const [u] = decodeUnits(
      encodeUnits([
        { events: [event('a'.repeat(32), stored), event('b'.repeat(32), 'b')], outcomes: [] },
      ]),
    )
    const [bytes, text] = u?.events ?? []
    expect(bytes?.payload).toBeInstanceOf(Uint8Array)
    expect(Array.from(bytes?.payload as Uint8Array)).toEqual(Array.from(stored))
    // A text payload that happens to read 'b' stays text.
    expect(text?.payload).toBe('b')
  })

  it('carries undigested event items as the bytes received, after the unit’s payloads', () => {
    const raw = Buffer.from('{"message":"caf\u00e9 \u{1f600}","event_id":"x"}')
    const units: WriteUnit[] = [
      {
        events: [event('a'.repeat(32), '{"done":true}')],
        outcomes: [],
        undigested: {
          projectId: 1,
          keyId: 2,
          component: 'checkout',
          received: 5,
          clientIp: null,
          items: [
            { payload: raw, headerId: 'b'.repeat(32) },
            { payload: Buffer.alloc(0), headerId: null },
          ],
        },
      },
      { events: [event('c'.repeat(32), 'c')], outcomes: [] },
    ]
    const [first, second] = decodeUnits(encodeUnits(units))
    expect(first?.events[0]?.payload).toBe('{"done":true}')
    expect(
      first?.undigested?.items.map((i) => [Buffer.from(i.payload).toString(), i.headerId]),
    ).toEqual([
      [raw.toString(), 'b'.repeat(32)],
      ['', null],
    ])
    expect({ ...first?.undigested, items: [] }).toEqual({ ...units[0]?.undigested, items: [] })
    expect(second).toEqual(units[1])
  })

  it('sends each distinct privacy setting once per group and gives back one object per text', () => {
    const custom: PrivacySettings = { ...NEW_PROJECT_PRIVACY, scrubIp: true, safeFields: ['x'] }
    const unit = (privacy: PrivacySettings | null): WriteUnit => ({
      events: [],
      outcomes: [],
      undigested: {
        projectId: 1,
        keyId: 1,
        component: null,
        received: 1,
        clientIp: null,
        privacy,
        items: [],
      },
    })
    const ab = encodeUnits([unit(custom), unit(custom), unit(null), unit(NEW_PROJECT_PRIVACY)])
    // The custom settings' text is in the buffer once, not once per unit.
    const text = Buffer.from(ab).toString('utf8')
    expect(text.split('safeFields').length - 1).toBe(2)
    const [a, b, c, d] = decodeUnits(ab)
    expect(a?.undigested?.privacy).toEqual(custom)
    expect(b?.undigested?.privacy).toBe(a?.undigested?.privacy)
    expect(c?.undigested).not.toHaveProperty('privacy')
    expect(d?.undigested?.privacy).toEqual(NEW_PROJECT_PRIVACY)
    // The next group's copy is the same object, so the digest finds its prepared policy by identity.
    const [again] = decodeUnits(encodeUnits([unit({ ...custom })]))
    expect(again?.undigested?.privacy).toBe(a?.undigested?.privacy)
  })

  it('refuses a buffer with bytes it cannot account for', () => {
    const ab = encodeUnits([{ events: [event('f'.repeat(32), '{}')], outcomes: [] }])
    const longer = new Uint8Array(ab.byteLength + 1)
    longer.set(new Uint8Array(ab))
    expect(() => decodeUnits(longer.buffer)).toThrow(/left over/)
  })
})
