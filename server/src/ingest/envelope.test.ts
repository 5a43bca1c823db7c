import { describe, expect, it } from 'vitest'
import { ApiError } from '../errors.ts'
import { parseEnvelope } from './envelope.ts'

const b = (s: string) => Buffer.from(s, 'utf8')
const types = (s: string | Buffer) =>
  parseEnvelope(typeof s === 'string' ? b(s) : s).items.map((i) => [
    i.header.type,
    i.payload.toString(),
  ])

describe('parseEnvelope', () => {
  it('reads items without length (JS) up to the next newline, no trailing newline', () => {
    expect(
      types(
        '{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc"}\n{"type":"event"}\n{"x":1}\n{"type":"session"}\n{"s":2}',
      ),
    ).toEqual([
      ['event', '{"x":1}'],
      ['session', '{"s":2}'],
    ])
  })

  it('reads items with length (Python, Rust) and a trailing newline', () => {
    expect(
      types('{}\n{"type":"event","length":7}\n{"x":1}\n{"type":"session","length":7}\n{"s":2}\n'),
    ).toEqual([
      ['event', '{"x":1}'],
      ['session', '{"s":2}'],
    ])
  })

  it('keeps newlines inside a sized binary payload', () => {
    const env = '{}\n{"type":"attachment","length":6}\nhi\nyou\n{"type":"event"}\n{}'
    expect(types(env)).toEqual([
      ['attachment', 'hi\nyou'],
      ['event', '{}'],
    ])
  })

  it('accepts a header-only envelope, `{}` headers and an item header at EOF', () => {
    expect(parseEnvelope(b('{}')).items).toEqual([])
    expect(parseEnvelope(b('{}\n')).items).toEqual([])
    expect(types('{}\n{"type":"event"}')).toEqual([['event', '']])
    expect(types('{}\n{"type":"event","length":0}')).toEqual([['event', '']])
    expect(types('{}\n{"type":"event","length":0}\n')).toEqual([['event', '']])
  })

  it('tolerates blank lines between items and trailing whitespace', () => {
    expect(types('{}\n{"type":"a"}\n{}\n\n\n{"type":"b"}\n{}\n\n  \n')).toEqual([
      ['a', '{}'],
      ['b', '{}'],
    ])
  })

  it('treats CR as part of the payload, not as a line end', () => {
    expect(types('{}\r\n{"type":"a"}\r\n{}\r\n{"type":"b"}\n{}')).toEqual([
      ['a', '{}\r'],
      ['b', '{}'],
    ])
  })

  const rejects = (s: string, cause: RegExp) => {
    try {
      parseEnvelope(b(s))
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError)
      const e = err as ApiError
      expect(e.status).toBe(400)
      expect([e.message, ...e.causes].join(' ')).toMatch(cause)
      return
    }
    throw new Error(`expected ${JSON.stringify(s)} to be rejected`)
  }

  it('rejects broken framing with a 400 that names the cause', () => {
    rejects('not json\n{"type":"event"}\n{}', /envelope header/)
    rejects('[1]\n', /not a JSON object/)
    rejects('{}\n{"length":2}\n{}', /missing type/)
    rejects('{}\n{"type":"event","length":50}\n{}', /unexpected end of file/)
    rejects('{}\n{"type":"event","length":2}\n{}XX\n', /missing newline/)
    rejects('{}\n{"type":"event","length":-1}\n{}', /bad length/)
    rejects('{}\n{"type":"event","length":"7"}\n{}', /bad length/)
    rejects('', /empty/)
    rejects('  \n ', /empty/)
  })
})

describe("the envelope header's event_id", () => {
  it('is a UUID, dashed or not, or absent; anything else refuses the envelope', () => {
    const body = (id: unknown) =>
      Buffer.from(`${JSON.stringify({ event_id: id })}\n{"type":"event"}\n{}`)
    expect(parseEnvelope(body('9ec79c33ec9942ab8353589fcb2e04dc')).items).toHaveLength(1)
    expect(parseEnvelope(body('9EC79C33-EC99-42AB-8353-589FCB2E04DC')).items).toHaveLength(1)
    expect(parseEnvelope(body(null)).items).toHaveLength(1)
    for (const bad of ['not-a-uuid', '', 12, { id: 1 }]) {
      let caught: unknown
      try {
        parseEnvelope(body(bad))
      } catch (err) {
        caught = err
      }
      expect(caught, String(bad)).toBeInstanceOf(ApiError)
      const e = caught as ApiError
      expect(e.status).toBe(400)
      expect(e.causes).toEqual(['invalid envelope header: event_id is not a UUID'])
    }
  })
})
